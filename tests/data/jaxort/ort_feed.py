import sys, numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 512])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 512])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "/tmp/fw16run/relu.onnx")
sess = ort.InferenceSession("/tmp/fw16run/relu.onnx", providers=["CPUExecutionProvider"])
feed = np.ones((4, 256), np.float32) if sys.argv[1] == "shape" else np.ones((4, 512))
print("feeding", feed.shape, feed.dtype)
sess.run(None, {"x": feed})
