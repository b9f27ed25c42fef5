"""Build /tmp/heldout-aw/explain_heldout_aw.jsonl (eval-aw). Texts are lines pasted in the public threads, verbatim
(lines cut off in the stored excerpt are left out whole)."""
import json
cases = []
def add(**kw):
    cases.append(kw)

add(id="aw-gpuop266-ocp-secure-boot-unsigned-nvidia-ko",
    url="https://github.com/NVIDIA/gpu-operator/issues/266",
    source_repo="NVIDIA/gpu-operator", category="driver",
    text="""Building kernel modules
  : [##############################] 100%

ERROR: The kernel module failed to load, because it was not signed by a key that is trusted by the kernel. Please try installing the driver again, and sign the kernel module when prompted to do so.
""",
    family="k8s.gpu_operator", family_alternatives=["gpu.driver_module", "gpu.driver_not_loaded"],
    fix="The node boots with UEFI Secure Boot (kernel module signature enforcement), so the unsigned nvidia.ko that the GPU Operator driver container builds on the node is rejected; disable Secure Boot on the GPU nodes, or sign the modules with a key enrolled in the node's MOK/UEFI db (the driver container does not sign them itself).",
    fix_keywords=["Secure Boot", "MOK"],
    healthy=False, group="k8s",
    label_note="Issue closed; the error itself says the module was rejected for lacking a trusted signature. Settled cause from related maintainer/merged material: gpu-operator#141 (NVIDIA maintainer nvjmayo: signing on Secure Boot nodes not supported by the driver container, manual process) and openshift/assisted-service PR #7019 (merged, 'Secure boot must be disabled for NVIDIA GPUs': the drivers are built dynamically and not signed, so they can't be loaded). No reporter confirmation in the excerpt I read (medium). The second ERROR line of the paste was cut off in the stored excerpt and is left out.")

add(id="aw-ompi8824-mpirun-libopen-orted-mpir-not-found",
    url="https://github.com/open-mpi/ompi/issues/8824",
    source_repo="open-mpi/ompi", category="mpi",
    text="""/usr/local/mpi/bin/mpirun: error while loading shared libraries: libopen-orted-mpir.so: cannot open shared object file: No such file or directory
""",
    family="libload.dso", family_alternatives=["mpi.launch", "mpi.env_not_passed"],
    fix="The source-built Open MPI in /usr/local/mpi is not on the dynamic loader path, so mpirun cannot load its own libopen-orted-mpir.so; export LD_LIBRARY_PATH=/usr/local/mpi/lib:$LD_LIBRARY_PATH in the shell that runs mpirun (or add the directory with ldconfig), or configure with --enable-mpirun-prefix-by-default.",
    fix_keywords=["LD_LIBRARY_PATH", "ldconfig"],
    healthy=False, group="mpi",
    label_note="Open MPI developer (ggouaillardet) answered: export LD_LIBRARY_PATH=/usr/local/mpi/lib (unless built with --enable-mpirun-prefix-by-default); the reporter then thanked him and wrote 'The problem has finally bee[n ...]' and the issue is closed. The reporter's last message is cut in the stored excerpt and an earlier attempt via /etc/profile had not worked, so exactly how it was fixed is not visible (medium-weak). Single host, GPU build of Open MPI (CUDA+UCX).")

add(id="aw-ogkm862-rtx5090-no-devices-above-4g-rebar-off",
    url="https://github.com/NVIDIA/open-gpu-kernel-modules/issues/862",
    source_repo="NVIDIA/open-gpu-kernel-modules", category="driver",
    text="""# nvidia-smi
No devices were found

Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0
Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)
""",
    family="gpu.no_devices", family_alternatives=["gpu.driver_module", "gpu.xid.init"],
    fix="The GPU's large BARs cannot be mapped because Above 4G Decoding and Resizable BAR are disabled in the motherboard BIOS (the default on that board), so RmInitAdapter fails and nvidia-smi finds no devices; enable Above 4G Decoding and Resizable BAR in the BIOS and reboot.",
    fix_keywords=["Above 4G", "Resizable BAR", "4G decoding"],
    healthy=False, group="driver",
    label_note="Text is a commenter's (cyril23) paste in the closed issue; he states that he saw exactly this while Resizable BAR and Above 4G Decoding were disabled (BIOS default) and that enabling both fixed it. The original reporter's own resolution is not in the excerpt (medium). Consumer GPU (RTX 5090), single GPU; the commenter's '# meanwhile, output in /var/log/syslog' note and the cut-off third syslog line are left out.")

add(id="aw-horovod195-docker-two-nodes-btl-tcp-no-route",
    url="https://github.com/horovod/horovod/issues/195",
    source_repo="horovod/horovod", category="mpi",
    text="""mpirun -np 4 -H 10.240.209.120:2,10.240.208.206:2 -mca plm_rsh_args "-p 12345" python keras_mnist_advanced.py
/usr/local/lib/python2.7/dist-packages/h5py/__init__.py:36: FutureWarning: Conversion of the second argument of issubdtype from `float` to `np.floating` is deprecated. In future, it will be treated as `np.float64 == np.dtype(float).type`.
  from ._conv import register_converters as _register_converters
Using TensorFlow backend.
/usr/local/lib/python2.7/dist-packages/h5py/__init__.py:36: FutureWarning: Conversion of the second argument of issubdtype from `float` to `np.floating` is deprecated. In future, it will be treated as `np.float64 == np.dtype(float).type`.
  from ._conv import register_converters as _register_converters
Using TensorFlow backend.
[train04][[9281,1],1][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to 192.168.118.0 failed: No route to host (113)
""",
    family="mpi.btl_tcp_if", family_alternatives=["mpi.transport", "errno.ehostunreach"],
    fix="Open MPI's TCP BTL offers every up interface, including docker/virtual bridges whose addresses are not routable between the two hosts, and a rank tries to connect to such an address; restrict the BTL to the routed interface (-mca btl_tcp_if_include eth0) or exclude the bridges (-mca btl_tcp_if_exclude lo,docker0), as in Horovod's 'hangs due to non-routed network interfaces' guidance.",
    fix_keywords=["btl_tcp_if_include", "btl_tcp_if_exclude"],
    healthy=False, group="mpi",
    label_note="Issue closed as a question. The settled guidance is Horovod's documented fix for this symptom ('Hangs due to non-routed network interfaces': exclude/include interfaces via btl_tcp_if_*), which a Horovod maintainer (alsrgv) gave for the same Docker-on-two-machines hang in horovod#397, and which the reporter of horovod#209 cites together with this issue (#195) as the resolution. This thread's own reply is not in the excerpt (medium). The last line of the paste ('[train01]...') is cut in the excerpt and left out.")

add(id="healthy-aw-volcano-mpijob-hello-openib-notice",
    url="https://github.com/kubernetes-retired/kube-batch/pull/793",
    source_repo="kubernetes-retired/kube-batch", category="healthy",
    text="""-------------------------------------------------------------------------
[[40437,1],1]: A high-performance Open MPI point-to-point messaging module
was unable to find any relevant network interfaces:

Module: OpenFabrics (openib)
Host: lm-mpi-job-mpiworker-1

Another transport will be used instead, although this may result in
lower performance.
--------------------------------------------------------------------------
Hello world from processor lm-mpi-job-mpiworker-1, rank 1 out of 2 processors
Hello world from processor lm-mpi-job-mpiworker-0, rank 0 out of 2 processors
""",
    family="healthy", family_alternatives=[],
    fix="", fix_keywords=[],
    healthy=True, group="healthy",
    label_note="Expected output of the Volcano/kube-batch MPI example job, committed in merged PR #793 (reviewer reproduced the run; both ranks on two worker pods print their hello line). The openib notice only says no InfiniBand device exists in the pods and another transport (TCP) is used. The diff '+' and YAML comment prefix '#   ' of each line were removed; otherwise verbatim. Medium-strong as healthy; related to (not the same text as) earlier-set benign-openib-warning cases.")

with open("/tmp/heldout-aw/explain_heldout_aw.jsonl", "w") as f:
    for c in cases:
        assert set(c) == {"id", "url", "source_repo", "category", "text", "family", "family_alternatives", "fix", "fix_keywords", "healthy", "group", "label_note"}
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(cases), "cases")
