"""bench/data/wrong27_by_mechanism.json: every confidently wrong answer and every no-answer text of the seen sets at
session 27's start, by why (issue 18 items 2-3).

    python bench/wrong27_classify.py BASE.json AFTER.json "TREE"

BASE / AFTER: bench/explain_compare.py run outputs (the session's start and end; development sets skipped). Confidently
wrong answers keep bench/data/wrong20_by_mechanism.json's class; the ones read in session 27 are in NEW; no-answer
texts are sorted by the answer's verdict and the text's lines (a heuristic, said in each case)."""
import json, glob, os, re, sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data') + '/'
base = json.load(open(sys.argv[1]))
after = json.load(open(sys.argv[2]))
w20 = json.load(open('' + DATA + 'wrong20_by_mechanism.json'))
old = {(c['set'], c['id']): c for c in w20['cases']}
texts, urls = {}, {}
for p in glob.glob('' + DATA + 'explain_heldout_*.jsonl'):
    name = p.split('explain_heldout_')[1][:-6]
    if name not in base['sets']:
        continue
    for line in open(p):
        c = json.loads(line)
        texts[(name, c['id'])] = c['text']
NEW = {  # read here (session 27): the 13 confidently wrong answers wrong20 had not classified, and the one fixed
    'al-biop2-image-ships-driver-libs-file-exists': ('label', 'container.nvml_driver names the settled fix (the image ships the driver libraries nvidia-container-cli mounts); the label is the OCI mount family'),
    'ao-slurm-ubuntu22-cgroupv1-plugin': ('generic_code', "srun's 'task 0 launch failed: Plugin initialization failed' (launch_slurm wrapper around slurm_strerror): the plugin that failed (cgroup v1 on a cgroup v2 host) is only in slurmd's log"),
    'ao-rootless-podman-nocgroups-nvml': ('generic_code', "'Failed to initialize NVML: Insufficient Permissions' alone: NVML_ERROR_NO_PERMISSION's meaning; the container (rootless podman, no-cgroups) is only in the thread; the label's alternative names that very NVML site id (nvml.nvml_error_no_permission)"),
    'ao-nccl-ib-error4-acs': ('label', 'nccl.remote_error (a completion error from the peer) against nccl.net_ib: the ACS cause is in the thread'),
    'ao-hami-core-bogus-memory-oom': ('earlier_line_ignored', "HAMi-core's own '[HAMI-core ERROR (...)]: Device 0 OOM' line before CUDA_ERROR_UNKNOWN: the code that gives no reason (999) is the root, the vGPU library's line before it is not read"),
    'ao-pmix5-gds-shmem-pml-empty': ('echo_root', "slurmstepd's STEP CANCELLED line that srun's own kill-on-bad-exit caused ('srun: Terminating StepId') read as a person's scancel; Open MPI's 'selected pml ob1, but peer ... selected pml' line is the first failure"),
    'p32-torchrun_elastic_nnodes_range_last_call_wait': ('launch_misread', "torchrun --nnodes 1:2's maximum read as the node count: 'localhost on a 2-node plan' for a one-node elastic job"),
    'p33-hydra_json_dump_dictconfig': ('generic_family_root', "json.dump(cfg) of an OmegaConf DictConfig: the stdlib raised on the user's call (code.exception, medium); the label is Hydra's config family"),
    'p33-filestore_init_file_reused': ('generic_as_specific', "Gloo's 'connectFullMesh failed ... Connection refused' to 127.0.0.1 read as GLOO_SOCKET_IFNAME; the FileStore file of an earlier run (ls shows it) is the cause"),
    'p33-slurm_ntasks_per_node_unset_torchrun': ('vocab', "torchrun's int('') of an empty SLURM_NTASKS_PER_NODE answered as its nproc check (torch.distributed_usage); the label is the job's environment"),
    'p35-distributed_sampler_local_world_size_multinode': ('vocab', "DistributedSampler's rank check answered torch.usage; the label is torch.distributed_usage"),
    'p35-hydra_dataclass_mutable_list_default': ('generic_family_root', "dataclasses' 'mutable default ... use default_factory' on a Hydra structured config: code.exception (medium); the label is OmegaConf's structured config family"),
    'p35-hf_multilabel_problem_type_int_labels': ('vocab', 'torch.usage (the loss got int targets) against transformers.usage (problem_type)'),
    'p35-datasets_from_generator_called_generator': ('label', 'datasets.load against datasets.usage (Dataset.from_generator given a generator object)'),
    'ptop-258-pytorchjob-worker-crashloop-user-namespace-sidecar': ('echo_root', "CrashLoopBackOff (a state that reports the container's own failure) stated as the root; the istio sidecar is in the thread"),
}
FAIL = re.compile(r"(?i)\b(?:error|fail(?:ed|ure)?|fatal|killed|exception|traceback|abort(?:ed)?|refused|timed? ?out|denied|cannot|unable)\b")
cases = []
for s, rows in base['sets'].items():
    arows = {r['id']: r for r in after['sets'].get(s, [])}
    for r in rows:
        a = arows.get(r['id'], {})
        kind = 'confidently_wrong' if r['confident_wrong'] else ('no_answer' if r['no_answer'] else None)
        if kind is None and r['healthy'] and not r['healthy_ok']:
            kind = 'healthy_flagged'
        if kind is None:
            continue
        c = {'set': s, 'id': r['id'], 'url': r['url'], 'kind': kind, 'expected': r['expected'],
             'verdict': r['verdict'], 'root': r['root'],
             'verdict_after': a.get('verdict'), 'root_after': a.get('root'),
             'still_after': bool(a.get('confident_wrong') if kind == 'confidently_wrong' else a.get('no_answer') if kind == 'no_answer' else not a.get('healthy_ok'))}
        o = old.get((s, r['id']))
        if r['id'] in NEW:
            c['mechanism'], c['why'] = NEW[r['id']]
            c['classified_by'] = 'wrong27 (read)'
        elif o and kind != 'no_answer':
            c['mechanism'] = o['mechanism']
            c['classified_by'] = o.get('classified_by', 'wrong20')
        elif kind == 'no_answer':
            t = texts.get((s, r['id']), '')
            lines = [l for l in t.splitlines() if l.strip()]
            failing = [l for l in lines if FAIL.search(l)]
            if r['verdict'] == 'unknown_error':
                c['mechanism'] = 'failure_line_no_reader'
            elif r.get('notes'):
                c['mechanism'] = 'note_only'
            elif failing:
                c['mechanism'] = 'failure_words_unread'
            else:
                c['mechanism'] = 'no_failure_line'
            c['classified_by'] = 'wrong27 (by the answer and the text\'s lines: heuristic)'
        else:
            c['mechanism'] = 'unclassified'
            c['classified_by'] = None
        cases.append(c)
MECH = dict(w20['mechanisms'])
MECH.update({
    'earlier_line_ignored': "a more specific line before the root, of a program no entry reads (a vGPU library's ERROR), left unread: the root is a code that gives no reason",
    'launch_misread': "a launch line read wrongly (an elastic node range's maximum taken as the node count)",
    'failure_line_no_reader': "no answer, verdict unknown_error: an explicit failure line was found (scan.errors) and no structural reader gave it a family: a program no table reads (an operator's log, a package manager, Ascend's runtime, a CNI plugin, dnf) or a one-line quote",
    'note_only': "no answer, verdict no_error: only known warnings / INFO lines matched (notes); the failure is told in words or is in a log not pasted",
    'failure_words_unread': "no answer, verdict no_error: failure words in the text (prose, a table, a quoted message) that no reader takes as an error line",
    'no_failure_line': "no answer, verdict no_error: no failure word at all (a hang, slowness or wrong result told in words, a config shown)",
})
import collections
counts = collections.Counter((c['kind'], c['mechanism']) for c in cases)
out = {'about': "Session 27 (wrong27, issue 18 items 2-3): every confidently-wrong answer, no-answer text and healthy log given a root of the seen sets (bench/data/explain_heldout_*.jsonl without the session's 23 development sets) at the session's start 15bc732 (/tmp/cmp27_base.json, made by the lead with bench/explain_compare.py run --skip), by why. Confidently wrong: wrong20's class where wrong20 (or wrong18) classified the case; the 13 it had not and the two fixed here read whole ('classified_by': 'wrong27 (read)'). No answer: sorted by the answer's verdict and the text's lines (a heuristic, 'classified_by' says so). 'verdict_after' / 'root_after' / 'still_after': this session's end tree (" + sys.argv[3] + ").",
       'mechanisms': MECH,
       'counts': {'%s/%s' % k: v for k, v in sorted(counts.items())},
       'cases': cases}
json.dump(out, open('' + DATA + 'wrong27_by_mechanism.json', 'w'), indent=1)
print(json.dumps(out['counts'], indent=1))
print(len(cases), sum(1 for c in cases if c['mechanism']=='unclassified'))
