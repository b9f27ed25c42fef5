import numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 512])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 512])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(m, "/tmp/fw16run/relu.onnx")
print("onnxruntime", ort.__version__, "device", ort.get_device())
sess = ort.InferenceSession("/tmp/fw16run/relu.onnx", providers=["CUDAExecutionProvider"])
print("session providers:", sess.get_providers())
out = sess.run(None, {"x": np.ones((4, 512), np.float32)})
print("ok", out[0].shape)
