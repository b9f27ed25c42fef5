"""Failures told in words, read by meaning (issue 18): "nvidia-smi shows both python processes on
GPU 0", "4 procs, all on gpu0", "用torchrun启动了4个进程，但是全都跑在0号卡上" are one symptom
(torch.ranks_share_gpu) however they are phrased. symptoms.py's `words` lists phrasings; this module
reads what the phrasings have in common.

A small lexicon of concept classes (CLASSES: subjects such as a GPU with its index, processes, one
rank, memory, loss, the data; predicates such as stuck, slow, idle, the same, differs, NaN, on the
CPU), English and Chinese, with negation folded into the classes that need it ("does not use the
GPU" is `cpu`, "not faster" is `slow`, "not working" is `idle`) and quantities read out (GPU indices:
"GPU 0", "cuda:0", "0号卡", "the first card"; "10x slower"; "0%"). A text is read per sentence
(split on . ! ? ; and newlines, 。！？；), and a sentence with the one after it (a complaint told over
two sentences or wrapped lines). Derived classes carry the conditions: `same_gpu` is one GPU index
said twice or with all/both/every ("both on GPU 0" = one index), `contrast` is a busy GPU beside an
idle one or the others.

A symptom of symptoms.toml lists in `means` the combinations of classes that say it ("procs
same_gpu !mem": processes, one GPU index for them, no memory words); the first entry in rules_of()'s
order (`means_order`, then the table's) whose combination holds in a window is that window's symptom (the
most specific first: accelerate's own symptoms before the generic ones, DataParallel before "no speed-up").

Only the user's lines count (symptoms._NOT_USERS / _COMMAND: no logger, NCCL, traceback, KEY=VALUE or
command line; no progress bar), and a sentence that says the problem is solved ("works now",
"fixed", 解决了) or asks how to do something ("How do I ...?", 请问...) says no symptom. The scan
hands this module only the lines that hold one of NEEDLES (the predicates' literal words, the
prefilter); each is cut to MAX_LINE characters, every class is a bounded regex (linear time), and at
most MAX_KEPT lines are kept.
"""

import re

ENTRY = "_meaning"
PREFIX = "_meaning."
MAX_LINE = 600  # characters of a line read
MAX_KEPT = 64  # user lines with a predicate kept per scan
MAX_SENTS = 40  # sentences of one line read (a person's line of 600 characters has a few; 'a. ' * 200 has 200)
NEAR = 1  # lines apart that still make one paragraph (a sentence and the next)

_F = re.I | re.ASCII  # ASCII \b and \w: an English word next to a Chinese one ('一个rank的loss') has its boundary
_NEG = r"(?:not|never|no|n't|doesn't|does not|don't|do not|didn't|did not|isn't|is not|aren't|are not|won't|cannot|can't)"

# GPU indices: 'GPU 0', 'GPU1', 'cuda:0', 'device 0', 'card #2', '0号卡', '第1张卡', 'the first card'
_IDX = re.compile(r"\b(?:gpu|cuda|device|card)\s?[:#_]?\s?(\d{1,2})\b(?![.,]\d)|(\d{1,2})\s?号\s?(?:卡|gpu|GPU)|第\s?(\d{1,2})\s?张卡|"
                  r"\b(first|second|third|fourth)\s(?:gpu|card|device)\b", _F)
_ORD = {"first": 0, "second": 1, "third": 2, "fourth": 3}
# GPU counts and the figures said with them: '1 GPU: 850 samples/s. 4 GPUs: 870 samples/s', '76% on a single GPU but
# 71% with 8 GPUs', '单卡 1 epoch 20 分钟, 换成 4 卡还是 20 分钟'. A figure goes with the nearest count.
_COUNT = re.compile(r"\b(\d{1,2}|one|two|three|four|eight|sixteen|a single|single)[- ]?(?:x\s?)?(?:gpus?|cards?|devices?)\b|"
                    r"(单|\d{1,2}|[一二两三四八])\s?张?卡", _F)
_NUM = {"one": 1, "a single": 1, "single": 1, "two": 2, "three": 3, "four": 4, "eight": 8, "sixteen": 16, "单": 1,
        "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "八": 8}
_FIG = re.compile(r"(\d{1,7}(?:\.\d{1,3})?)\s?(?:(%)|((?:samples?|its?|iters?|img|imgs|images|tokens?|tok|seqs?|steps?|examples?)"
                  r"\s?/\s?(?:s|sec|second))|(ms|s|sec|secs|seconds|min|mins|minutes|h|hrs?|hours?|分钟|小时|秒))(?![A-Za-z])", _F)
MAX_FIGS = 8
# a list of them: 'GPUs 1, 2, and 3', 'cards 0,1'
_IDX_LIST = re.compile(r"\b(?:gpus|cards|devices)\s((?:\d{1,2}\s?(?:,\s?(?:and\s)?|and\s|&\s?|\+\s?)){1,15}\d{1,2})\b", _F)

CLASSES = {
    # ---- subjects
    "gpu": r"\b(?:gpus?|cards?|devices?|cuda)\b|显卡|张卡|号卡|[几多单]卡",
    "procs": r"\b(?:processes|procs|ranks|workers|subprocesses)\b|\b(?:\d{1,3}|two|three|four|eight|both|all|every|each|"
             r"multiple|several)\s(?:\w{1,12}\s)?(?:process|proc|rank|worker|task)s?\b|\b(?:both|all|each) of them\b|"
             r"\bprocess\s\d{1,7}\b[^.;]{0,80}\bprocess\s\d{1,7}\b|进程",
    "one_rank": r"\brank\s?[:#]?\s?\d{1,5}\b|\[rank\d{1,5}\]|\bone of (?:the |my )?(?:ranks|processes|workers|gpus)\b|"
                r"\b(?:a|one|single) (?:rank|process|worker)\b|\bgpu\s?\d{1,2}(?:'s)? process\b|[一某]个\s?(?:rank|进程)",
    "node": r"\b(?:nodes?|machines?|hosts?|servers?)(?:'s)?\b|节点|机器",
    "a_gpu": r"\b(?:\d{1,2}|one|a|some|several|two|three) (?:of (?:the|my) (?:\d{1,2} )?)?(?:gpus?|cards?|devices?)\b|[一两几]张卡",
    "others": r"\bothers?\b|\bthe rest\b|\bremaining\b|其他|其它|别的|其余",
    "mem": r"\bmemory\b|\bvram\b|\b(?:\d{1,6}|a|an|one|half a|a few|several)\s?(?:mib|mb|gb|gib|gigabytes?|megabytes?)\b|\booms?\b|\bout of memory\b|显存|爆显存",
    "loss": r"\blosse?s?\b|\baccura(?:cy|te)\b|\bacc\b|\bconverge\w{0,4}|\bresults?\b|\bmetrics?\b|\bperplexity\b|\bbleu\b|"
            r"\bf1\b|精度|准确率|收敛|效果|结果",
    "epoch": r"\bepochs?\b|\bvalidat\w{0,5}|\beval\w{0,6}\b|\bcheckpoint\w{0,2}|验证|评估|保存",
    # accelerate, or transformers' Trainer (capitalised: nnUNet's 'DP multi GPU trainer' is another one)
    "accel": r"\baccelerate\b|\b(?-i:Trainer)\b|\bhugging ?face\b|\bhf\b|\btransformers\b",
    "dp": r"\b(?:nn\.)?dataparallel\b|\bDP\b",
    "multi": r"\bmulti[- ]?(?:gpu|card|device)s?\b|\b(?:[2-9]|1[0-6]|two|four|eight|more|multiple|several|both|all)"
             r"\s(?:\w{1,10}\s)?(?:gpus|cards|devices)\b|\b(?:[2-9]|1[0-6])\s?(?:gpus?|cards?)\b|\bddp\b|\bdistributed\b|"
             r"\btorchrun\b|\badding (?:more )?gpus\b|多卡|多机|[2-9两四八]\s?张?卡",
    "single": r"\b(?:single|one|1)[- ](?:gpu|card|device)\b|单卡|单张卡|一张卡|\bthan before\b",
    "all_q": r"(?<!\bat )\ball\b|\b(?:both|every|each|also)\b|全都|都|所有|全部",
    # ---- predicates
    "stuck": r"\bhang(?:s|ing)?\b|\bhung\b|\bstuck\b|\bfreez\w{0,3}|\bfroze(?:n)?\b|\bno progress\b|\bdeadlock\w{0,3}|"
             r"\bwaits? forever\b|卡住|卡死|不动了|没反应|停住",
    "slow": r"\bslow(?:er|ly|s)?\b|慢",
    # slower than it should be, against a single GPU or before: not faster, no speed-up, the same time, Nx slower
    "no_gain": r"\bslower than\b|\bnot (?:any |much |really )?faster\b|" + _NEG + r"\s(?:\w{1,10}\s){0,2}(?:any |much )?"
            r"(?:faster|speed\s?up)\b|\bno (?:real )?(?:speed[- ]?up|speed gain|gain|scaling)\b|\bsame (?:\d{1,4} )?"
            r"(?:time|speed|minutes|hours|seconds|epoch time|throughput)\b|\bunchanged\b|\bdouble (?:the )?time\b|"
            r"\b(?:about|roughly|basically|nearly|almost|pretty much) the same\b|\b(?:barely|hardly|only slightly|not much) "
            r"faster\b|" + _NEG + r"\s(?:\w{1,10}\s)?(?:decrease|decreased|decreasing|reduce|reduced|shorter|improve|improved|"
            r"go down|goes down)\b|差不多|和单卡一样|跟单卡一样|\b\d{1,3}(?:\.\d)?\s?(?:x|times) slower\b|\blonger (?:\w{1,10} )?times?\b|\btakes? longer\b|没有?加速|速度.{0,6}一样|一样快|比单卡.{0,3}慢|反而.{0,6}慢",
    "idle": r"\bidle\b|(?<![\d.])0\s?%|\b0 percent\b|\b(?:zero|0) (?:util\w{0,8}|usage|percent|load)\b|\bunused\b|"
            r"\bdo(?:es)? nothing\b|\bnothing (?:running|on it)\b|\b(?:not|never) (?:\w{1,8} )?(?:working|used|utili[sz]ed|busy)\b|"
            r"\b(?:has|have|with) no (?:processes|process|load|work)\b|\bempty\b|\bis low\b|空闲|闲置|没用到|没有用到|"
            r"利用率\s?(?:都是|是|为|只有)?\s?0(?![.\d])|\butil\w{0,9}\s(?:is\s|stays\s|always\s|of\s)?0\b",
    "busy": r"\b100\s?%|\bbusy\b|\bpegged\b|\bfully (?:used|utili[sz]ed)\b|在跑|满载",
    "only_one": r"\bonly (?:one|1)\b[^.;,]{0,30}\b(?:used|working|busy|running|in use)\b|\b(?:only|just) (?:uses?|using|runs? on|"
                r"running on|on|sees?|trains? on)?\s?(?:one|1|a single|the first)\s(?:\w{1,8}\s)?(?:gpu|card|device)\b|"
                r"\b(?:one|1) (?:gpu|card|device) (?:is|was) used\b|只用了?\s?(?:一|1)\s?张|只有\s?(?:一|1)\s?张卡|"
                r"只有\s?(?:gpu|GPU)\s?0|仅(?:用了?)?(?:一|1)张|单卡在跑",
    "only": r"\bonly\b|\bjust\b|只|仅",
    "extra": r"\bextra\b|\badditional\b|\b(?:much |way )?(?:more|higher|bigger|larger|greater) than\b|\bfuller\b|\bhigher\b|\bbesides\b|\balso\b|\bimbalanced\b|"
             r"\bunbalanced\b|\buneven\b|\bfirst\b|多很多|多了|更多|额外|上涨|高很多",
    # the same GPU said once for several: 'both python processes on GPU 0', '8 个进程都在 GPU 0'
    "same_words": r"\bsame (?:gpu|card|device|cuda device)\b|同一张卡|同一个\s?gpu|同一块|"
                  r"\b(?:all|both|every|each)\s(?:\w{1,12}\s){0,3}(?:process|proc|rank|worker)(?:es|s)?\s(?:\w{1,12}\s){0,4}"
                  r"(?:on|in|at|to)\s(?:the\s)?(?:gpu|cuda|device|card)\s?[:#]?\s?\d|进程.{0,6}都在\s?(?:gpu|cuda)?\s?\d",
    # ('the same batch size' is DataLoader's batch_size setting, not the batches: wrong18)
    "data_same": r"\b(?:same|identical)\s(?:\w{1,12}\s){0,2}(?:data|batch(?:es)?(?![ _-]?sizes?\b)|samples?|order|images|"
                 r"inputs|examples|sequence)\b|\b(?:data|batch(?:es)?|samples?|order)\s(?:\w{1,12}\s){0,3}(?:are |is )?(?:identical|the same)\b|"
                 r"\b(?:whole|full|entire|complete) (?:\w{1,12} )?(?:data ?set|data|set)\b|\b(?:over|on|through) all (?:\d{1,9} )?(?:the )?"
                 r"(?:samples|data|images|examples)\b|完整的数据集|全部数据|数据.{0,8}(?:一样|相同)|"
                 r"batch.{0,6}(?:完全)?相同|没有打乱|不打乱|\bshuffl\w{0,4}\s(?:\w{1,12}\s){0,2}(?:doesn't|does not|isn't|"
                 r"is not|not|never)\b|" + _NEG + r"\s(?:\w{1,12}\s){0,2}shuffl\w{0,4}|\bcurves? of all ranks are identical\b|"
                 # the ranks' shards overlap: fewer distinct samples than the ranks took together (DistributedSampler's
                 # docs: each process gets a subset exclusive to it, given one seed in every process)
                 r"\b(?:distinct|unique)\s(?:\w{1,12}\s){0,2}(?:samples?|indices|indexes|examples|images)\b[^.;\n]{0,80}?\bonly\b|"
                 r"\b(?:samples?|data|shards?|indices|batches)\s(?:\w{1,12}\s){0,3}overlap\w{0,3}\b|\boverlapping (?:samples|data|"
                 r"shards|indices|batches)\b",
    "differ": r"\bdiffer\w{0,6}|\bnot the same\b|\b(?:doesn't|does not|don't|do not) match\b|\bmismatch\w{0,4}|\blower\b|"
              r"\bworse\b|\bhigher\b|\bdrops?\b|\bdegrad\w{0,5}|\bless accurate\b|下降|不一样|不同|不一致|低了|变差|更差|高|低",
    "nan": r"(?<![a-z])nans?(?![a-z])|(?<![a-z])inf(?![a-z])",
    "fine": r"\b(?:normal|normally|fine|ok|okay|good|healthy)\b|正常|没问题",
    # the variable, a container, a GPU nobody can see, the setting that does nothing, 'still' the old GPU
    "cvd": r"\bcuda_visible_devices\b",
    "container": r"\b(?:docker|containers?|podman|k8s|kubernetes|pods?|apptainer|singularity|enroot)\b|容器",
    "nogpu": r"\b(?:can't|cannot|can not|doesn't|does not|don't|do not|didn't|unable to|couldn't|could not|fails? to)\s"
             r"(?:\w{1,10}\s)?(?:see|find|detect|recogni[sz]e|access)\s(?:any\s|the\s|my\s)?(?:gpus?|cuda|devices?|cards?)\b|"
             r"\bno (?:gpus?|cuda devices?|nvidia devices?)\b|\b(?:gpus?|cuda)\s(?:is\s|are\s)?(?:not|n't)\s"
             r"(?:visible|detected|found|available|accessible)\b|\bis_available\(?\)?\s(?:is\s|returns?\s|returned\s|=\s?|==\s?|"
             r"gives\s|是\s?)?false\b|nvidia-smi:?\s(?:command\s)?not\sfound|(?:看不到|检测不到|找不到|识别不到|识别不了|没有)\s?"
             r"(?:gpu|显卡|cuda|卡)|nvidia-smi\s?找不到|(?:gpus?|显卡|cuda)\s?(?:不可用|用不了)",
    "ignores": r"\bignor(?:e|es|ed|ing)\b|\b(?:has|have|had) no effect\b|\bno effect\b|\b(?:not|n't|never) (?:\w{1,8} )?"
               r"(?:working|respected|honou?red|taking effect|work|respect)\b|\bdoesn't work\b|\bdoes nothing\b|"
               r"不生效|没有?生效|没用|没有用|无效|不起作用|不管用",
    "still": r"\bstill\b|\balways\b|\banyway\b|还是|仍然|依然|照样",
    "cpu": r"\bon (?:the )?cpus?\b|\bcpu only\b|\b(?:only|just) (?:uses?|using|on) (?:the )?cpus?\b|(?:只|全)(?:用|在)\s?cpu|"
           r"用的是\s?cpu|不用\s?(?:显卡|gpu)|\b(?:uses?|using|runs?|running|trains?|training) (?:\w{1,12} )?(?:on )?(?:the )?cpu\b|" + _NEG + r"\s(?:\w{1,10}\s)?(?:use|using|used|on|utili[sz]e)\s(?:the |any |my )?"
           r"gpus?\b|\bnot using gpu|在\s?cpu\s?上|cpu\s?上|没用到\s?gpu|没有用到\s?gpu|没用\s?gpu",
}
# What a training loop, a Slurm job, an MPI job or a saved model does wrong without an error line (words2, issue 18),
# the words of the documents that describe it (symptoms_usage.toml cites them per entry): PyTorch's reproducibility
# notes (seeds, runs), torch.optim and the zero_grad tutorial (the loss that never moves), DDP's no_sync (replicas
# that part ways), accelerate's gradient accumulation and big model inference (device_map, offload), DeepSpeed's
# ZeRO-3 model saving, squeue's pending REASON codes and sacct's job states, Open MPI's mpirun (a process that is
# a job of its own prints what every other prints).
CLASSES.update({
    # ---- subjects
    "runs": r"\b(?:runs|each run|every run|every time|each time|between runs|across runs|run[- ]to[- ]run|re-?runs?|rerunning|"
            r"seeds?|seeded|seeding|manual_seed|set_seed|back[- ]to[- ]back|twice)\b|每次(?:运行|跑|训练|结果|实验)|[两三四五几多\d]\s?次|随机种子|种子",
    # (a gradient norm too: after DDP's all-reduce every rank holds the same gradients, so the same norm)
    "params": r"\bweights?\b|\bparam(?:eter)?s?\b|\bstate_dicts?\b|\bchecksums?\b|\breplicas?\b|\bgrad(?:ient)?[_ ]norms?\b|权重|参数",
    "fsdp": r"\bfsdp2?\b|\bfully_shard\w{0,6}|\bfullyshardeddataparallel\b",
    "accum": r"\bgradient[- _]accumulation\w{0,6}|\bgrad(?:ient)?[_ ]accum\w{0,14}|\baccumulat\w{0,5}\s(?:steps?|gradients?|grads?)\b|"
             r"\baccumulation\b|\baccum(?:ulation)?_steps\b|\bmicro[- _]?(?:batch|step)\w{0,2}|梯度累[积加计]",
    "sjob": r"\bslurm\b|\bsbatch\b|\bsrun\b|\bsalloc\b|\bsqueue\b|\bsacct\b|\bscontrol\b|\bjobs?\b|作业|任务",
    "mpi": r"\bmpirun\b|\bmpiexec\b|\bmpi4py\b|\bopen ?mpi\b|\borterun\b|\bhorovodrun\b|\bmpi\b",
    "ds": r"\bzero[- _]?(?:stage[- _]?)?3\b|\bstage[- _]?3\b|\bdeepspeed\b|\bsave_16bit_model\b",
    "saved": r"\bsav(?:e|es|ed|ing)\b|\bexport\w{0,3}|\bcheckpoints?\b|\bstate_dict\b|\bsafetensors\b|\bpytorch_model\.bin\b|"
             r"\bweights? files?\b|\bfolder\b|保存|导出",
    "bigmodel": r"\bdevice_map\b|\bfrom_pretrained\b|\boffload\w{0,4}|\bmax_memory\b|\bgenerat(?:e|es|ion|ing)\b|\binference\b|"
                r"\bbig model\b|推理|生成",
    # ---- predicates
    "unrepro": r"\b(?:not|non|ir)[- ]?reproduc\w{0,6}|\bnon-?determinis\w{0,6}|(?:\bcan't|\bcannot|\bcan not|\bunable to|\bfails? to|"
               r"\bcouldn't|\bcould not)\s(?:\w{1,10}\s)?(?:reproduc\w{0,4}|get (?:the same|identical))|\b(?:identical|same) (?:\w{1,12} ){0,2}runs?\b[^.;]{0,60}"
               r"\b(?:diverg\w{0,4}|differ\w{0,6})|无法复现|不能复现|复现不了|不可复现|没法复现",
    "flat": r"(?:\bnot|n't|\bdont|\bdoesnt|\bnever|\bno longer)\s(?:\w{1,10}\s)?(?:decreas\w{0,3}|go(?:es|ing)? down|went down|drop\w{0,4}|"
            r"fall\w{0,3}|chang\w{0,3}|mov\w{0,3}|improv\w{0,4}|learn\w{0,3}|converg\w{0,4}|budg\w{0,3}|updat\w{0,3})\b|"
            r"\b(?:stays?|stayed|staying|stuck|sits?|sitting|remains?|remained|hovers?|hovering)\s(?:\w{1,10}\s)?(?:at|around|near|"
            r"about|the same|flat|constant|unchanged)\b|\b(?:flat|constant|plateau\w{0,4})\b|\bsame value\b|"
            r"\b(?:is|was|are|were) (?:exactly )?the same (?:at |on |in |for |after )?(?:every|each|all)\s(?:\w{1,10}\s)?"
            r"(?:steps?|epochs?|iterations?|iters?|batch(?:es)?)\b|\b(?:is|was|stays?|remains?) (?:exactly |still |always )?"
            r"\d{1,6}(?:\.\d{1,6})? (?:at|on|in|for|after) (?:every|each|all)\s(?:\w{1,10}\s)?(?:steps?|epochs?|iterations?|iters?)\b|"
            r"\b(?:barely|hardly) (?:moves?|moving|changes?|changing|decreases?|decreasing|goes down|improves?|improving)\b|"
            r"\blearns? nothing\b|一直在?\s?\d{1,6}(?:\.\d{1,6})?\s?(?:左右|附近)|没有?在?学习|不下降|不降|降不下去|不收敛|没有?变化|一直不变|完全不变|不变|不更新|没有?更新|学不到|没学到",
    "unsync": r"\bout of sync\b|\bdesync\w{0,8}|\bdiverg\w{0,5}|\bnot (?:equal|identical)\b|不同步",
    "queue": r"\bpending\b|\bPD\b|\bqueued?\b|\bsqueue\b|排队|队列",
    "notstart": r"\bnever (?:starts?|runs?|begins?|gets? (?:scheduled|started|allocated)|(?:gets? |is |was )?executed)\b|(?:\bnot|n't)\s(?:\w{1,8}\s)?"
                r"(?:start\w{0,3}|get\w{0,3} scheduled|scheduled|allocated)\b|不开始|没有?开始|不运行|没有?运行|没有?分配",
    "long": r"\bfor (?:\w{1,8} |\d{1,4} ?)?(?:hours|days|h)\b|\bforever\b|\balways\b|\bstill\b|\b(?:remains?|remained|stays?|stayed)\b|一直|好久|很久|几个小时|几天",
    "killed": r"\b(?:dies|died|disappear\w{0,3}|vanish\w{0,3}|gone|killed|terminat\w{0,3}|stops?|stopped|ends?|ended|exits?|exited|"
              r"crash\w{0,2}|aborts?|aborted)\b|没了|挂了|被杀|被kill|中断了|停了|退出了",
    "noerr": r"\bno (?:\w{1,10} )?(?:error|traceback|message|exception|reason|warning)s?\b|\bwithout (?:any |an )?(?:\w{1,10} )?"
             r"(?:error|traceback|message|exception|warning|reason)s?\b|\bnothing (?:after|else)\b|\bsilently\b|"
             r"没有任何?(?:报错|错误|输出|提示)|没有?报错",
    # every process prints what the others print: each is rank 0 of a world of one
    "same_out": r"\b(?:print|prints|printed|printing|output|outputs|log|logs|write|writes)\s(?:\w{1,10}\s){0,2}(?:the same|identical|"
                r"duplicate\w{0,2})\b|\b(?:same|identical|duplicated?) (?:output|logs?|lines|messages)\b|\bas if (?:they were|it was|"
                r"each (?:one )?(?:is|was)) (?:all )?(?:the first|rank 0|a single|alone)\b|\b(?:think|thinks|believe|believes|say|says|"
                r"report|reports) (?:they are|it is|that they are|they're) rank (?:0|zero)\b|\bworld[ _]?size (?:is |=|==|of )?1\b|"
                r"rank\s?(?:都是|全是|均为)\s?0|都是\s?rank\s?0|输出.{0,6}(?:一样|相同|重复)",
    "empty_out": r"\bempty\b|\bno (?:\w{1,10} )?(?:weights?|files?|tensors?|parameters)\b|\b(?:weights?|parameters|tensors?) "
                 r"(?:are |is )?(?:missing|empty|gone)\b|\bsize\s?\(?\[?0\]|\b(?:few|\d{1,3}) ?(?:bytes|kb)\b|\bnothing (?:to load|in it|"
                 r"saved|was saved)\b|空的|为空|没有权重|是空|(?:维度|大小|尺寸)为\s?0(?![.\d])",
    "grows": r"\b(?:keeps?|kept) (?:growing|increasing|rising|going up|climbing)\b|\b(?:grows?|growing|increas\w{1,3}|ris(?:es|ing)|"
             r"climb\w{0,3}|goes up|going up)\b[^.;]{0,40}\b(?:every|each|per|over)\b|\bleak\w{0,3}|\bcreep\w{0,3}|"
             r"一直(?:在)?(?:涨|增加|上涨|增长)|越来越(?:多|大|高)|泄漏|泄露",
    # PyTorch's FAQ (identical random numbers in DataLoader workers; out of memory in evaluation), CUDA semantics'
    # memory management (memory that nvidia-smi still shows), the performance tuning guide (low GPU utilization)
    "oom": r"\booms?\b|\bout of memory\b|\bruns? out of (?:gpu |cuda )?memory\b|\boom-?ed\b|爆显存|显存不足|显存溢出",
    "evalphase": r"\bvalidat\w{0,5}|\beval\w{0,6}\b|\binference\b|\bpredict\w{0,4}|\btest(?:ing)? (?:phase|loop|set|time)\b|"
                 r"验证|评估|推理|测试",
    "freed": r"(?:\bnot|n't|\bnever)\s(?:\w{1,10}\s)?(?:freed|released?|free|returned|given back)\b|\bstill (?:shows?|holds?|"
             r"occup\w{0,4}|uses?|used|allocated|reserved|there)\b|\bafter (?:del|deleting|empty_cache|torch\.cuda\.empty_cache)\b|"
             r"不释放|没有?释放|释放不了|释放不掉",
    "workers": r"\bnum_workers\b|\bworkers?\b|\bworker_init_fn\b|\bdata ?loaders?\b",
    "same_rand": r"\b(?:same|identical|duplicated?|repeated)\s(?:\w{1,12}\s){0,2}(?:random\w{0,4}|augment\w{0,6}|crops?|noise|transforms?)\b|"
                 r"\b(?:random\w{0,4}|augment\w{0,6}|crops?|noise|transforms?)\s(?:\w{1,12}\s){0,4}(?:is |are )?(?:the same|identical|"
                 r"duplicated)\b|随机.{0,8}(?:一样|相同|重复)|增强.{0,6}(?:一样|相同|重复)",
    "util_low": r"\butil\w{0,9}\s(?:\w{1,8}\s)?(?:is\s|stays\s|keeps\s)?(?:low|only|fluctuat\w{0,4}|jump\w{0,3}|oscillat\w{0,4}|"
                r"spiky|around|about|below|under)\b|\b(?:low|poor|fluctuating|spiky|unstable) (?:gpu )?(?:util\w{0,9}|usage)\b|"
                r"\bjump\w{0,3} between 0\s?%? and 100|\bgpu usage is (?:only|low|around|about)\b|"
                r"利用率.{0,6}(?:低|不高|波动|忽高忽低|上不去)",
})
_CLS = {}  # class -> its compiled regex, compiled when a sentence first may hold it (_searched): at import, compiling
# all of them was 40 ms of every `gpudoctor explain` start, most of whose texts hold none (tests/test_explain_loadgc.py
# compiles each)


def _cls(k):
    got = _CLS.get(k)
    if got is None:
        got = _CLS[k] = re.compile(CLASSES[k], _F)
    return got


# the derived classes (_derive), and `ev`: a cause of the entry has its evidence in the text (found() sets it per
# entry: a symptom said in general words, "it got slow", is answered only beside the line that names its cause)
KNOWN = set(CLASSES) | {"gpu0", "same_gpu", "contrast", "ev"}
# the classes a sentence needs one of to be a complaint (subjects alone say nothing)
PREDICATES = ("nogpu", "ignores", "still", "stuck", "slow", "no_gain", "idle", "busy", "only_one", "extra", "same_words", "data_same", "differ", "nan", "cpu",
              "mem", "only", "all_q", "unrepro", "flat", "unsync", "queue", "notstart", "killed", "noerr", "same_out", "empty_out",
              "grows", "oom", "freed", "same_rand", "util_low")

# a sentence that says it is solved, or asks how to do something ('Why ...?' is a complaint)
# ('fixed' as an adjective is no fix: 'one fixed batch', 'the seed is fixed', and after an article: 'on the same
# fixed eval batch', 'a fixed learning-rate schedule')
_SOLVED = re.compile(r"\b(?:works?|working|runs?) (?:now|fine now|again)\b|(?<!seed is )(?<!seeds are )(?<!seed was )"
                     r"(?<!\bthe )(?<!\bsame )(?<!\ba )\b(?:fixed|solved|resolved)\b(?! (?:batch|seed|size|learning rate|lr|number|length|value|set|sample|input|"
                     r"shape|point|step|order)s?\b)(?! (?:to|at) \d)|\bno longer\b|"
                     r"解决|搞定|好了", _F)
# ... or calls it fine, unless about the others ('rank 3 gets NaN while the others look normal')
_FINE_SAID = re.compile(r"\bas expected\b|\blooks? (?:fine|good|normal|right)\b", _F)
_BESIDE = re.compile(r"\b(?:others?|the rest|while|but|whereas)\b|其他|其它|但", _F)
_HOWTO = re.compile(r"^\W{0,4}(?:how|what|which|is there|are there|should|can i|could|do i|does|do we|请问|如何|怎么|怎样)"
                    r"(?!.{0,200}\b(?:why)\b).{0,500}[?？]\W{0,4}$", _F | re.S)
# a progress bar (tqdm: ' 45%|####      | 450/1000 [00:10<00:12, 40.0it/s]'), a table row (nvidia-smi's '|  0  ...  |')
_NOISE = re.compile(r"\d{1,3}%\|[^|\n]{0,200}\||\d{1,9}/\d{1,9} \[\d|^\s{0,8}\|.{0,400}\|\s{0,4}$|it/s\]|s/it\]")
_SPLIT = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]|(?<=[?!])(?=\S)")

# the prefilter: a line holds one of these (squashed: lower case, no blanks) or the scan never hands it here
NEEDLES = sorted({
    "hang", "hung", "stuck", "freez", "froze", "noprogress", "deadlock", "forever", "slow", "faster", "speedup",
    "distinct", "overlap",
    "speed-up", "longer", "zerousage", "0usage", "doublethetime", "idle", "at0%", "s0%", "e0%", "y0%", "0%u", "0%w", "0%b",
    "0%a", "0percent", "unused", "nothing", "notworking",
    "noprocess", "empty", "busy", "pegged", "justone", "asingle", "onegpuisused",
    "extra", "additional", "higher", "besides", "also", "imbalanced", "unbalanced", "uneven", "same", "identical",
    "whole", "entire", "fulldata", "shuffl", "differ", "lower", "worse", "drop", "degrad", "match",
    "nan", "gpu0", "cuda:0", "device0", "card0", "firstcard", "firstgpu", "memory",
    "oom", "vram", "cuda_visible_devices", "ignor", "noeffect", "notworking", "doesn'twork",
    "生效", "没用", "没有用", "无效", "不起作用", "cpu", "cantsee", "notavailable", "false",
    "nogpu", "notvisible", "notdetect", "看不到", "only", "notus", "n'tus", "neverus", "比单卡", "n'tsee", "notsee",
    "n'tfind", "notfind", "n'tdetect", "unableto", "failsto", "failto", "n'trecogni", "notrecogni", "n'taccess",
    "notaccess", "infloss", "lossinf", "isinf", "becomesinf", "becameinf", "becomeinf", "gotinf", "getsinf",
    "hitsinf", "hitinf", "fulltrain", "fullset", "差不多", "bigger", "larger", "greater", "fuller", "reduce", "shorter", "barely",
    "hardly", "samples/s", "sample/s", "img/s", "images/s", "examples/s", "检测不到", "找不到", "识别不", "不可用", "用不了", "notfound",
    "卡住", "卡死", "不动", "没反应", "停住", "慢", "加速", "空闲", "闲置", "利用率", "在跑", "满载",
    "只", "仅", "多很多", "多了", "额外", "同一", "一样", "相同", "完整的数据集", "全部数据", "打乱", "不同", "不一致",
    "低了", "下降", "lessaccurate", "变差", "更差", "显存", "都在", "全都", "号卡", "张卡",
    # words2's predicates (CLASSES.update above): negated verbs as the squash writes them, so that a log's own
    # 'learning_rate' or 'Updating' line is not handed over
    "reproduc", "determinis", "diverg", "复现", "decreas", "godown", "goesdown", "goingdown", "wentdown", "improv", "converg",
    "budg", "stays", "stayed", "staying", "sits", "sitting", "remain", "hover", "flat", "constant", "plateau",
    "不降", "降不下去", "不收敛", "变化", "不变", "更新", "学不到", "没学到", "outofsync", "desync", "notequal",
    "pending", "queue", "排队", "队列", "scheduled", "notstart", "n'tstart", "neverstart",
    "neverrun", "neverbegin", "neverget", "notallocated", "n'tallocated", "开始", "运行", "分配", "dies", "died", "disappear",
    "vanish", "gone", "killed", "terminat", "stops", "stopped", "ends", "ended", "exits", "exited", "crash", "abort",
    "没了", "挂了", "被杀", "被kill", "中断了", "停了", "退出了", "noerror", "notraceback", "nomessage", "noexception",
    "withoutan", "withouterror", "silently", "报错", "没有任何", "duplicate",
    "asif", "worldsize1", "worldsize=1", "都是", "重复", "noweight", "nofile", "notensor", "noparam", "missing", "size([0",
    "size[0", "空的", "为空", "没有权重", "是空", "grow", "increas", "rising", "rises", "climb", "goesup", "goingup", "leak",
    "creep", "涨", "增加", "增长", "越来越", "泄漏", "泄露",
    "runsoutof", "runoutof", "freed", "notrelease", "n'trelease", "notfree", "n'tfree",
    "neverfree", "neverrelease", "stillshow", "stillhold", "stilloccup", "stilluse", "stillallocated", "stillreserved",
    "stillthere", "afterdel", "释放", "random", "augment", "crop", "noise",
    "transform", "随机", "增强", "utiliz", "utilis", "lowgpu", "gpuutil", "jumpsbetween", "jumpingbetween", "jumpbetween",
    "gpuusage", "波动", "忽高忽低", "上不去",
    "mpirun", "mpiexec", "mpi4py", "openmpi", "fsdp", "fully_shard", "fullyshardeddataparallel",
    "维度为", "大小为", "尺寸为", "n'tget", "notget", "executed", "左右", "附近", "学习", "次", "accum_steps", "accumulat", "梯度累",
    "atevery", "everystep", "everyepoch", "eachstep", "eachepoch", "everyiteration", "eachiteration",
} | {n + v for n in ("not", "n't", "dont", "doesnt", "never") for v in ("mov", "learn", "updat", "fall")})
# (no needle holds another: the scan hands over a line that holds any one, so a longer needle that holds a shorter one
# is never the reason a line is read - 'notchang' holds 'hang', 'nolongerdrop' 'longer' and 'drop', 'oomed' 'oom'; the
# test tests/test_explain_meaning.py keeps it so)


def patterns(entries=()):
    """The scan pattern that hands record() the lines holding one of NEEDLES; checks the entries' `means`."""
    from gpudoctor.explain.knowledge import KnowledgeError, Pattern

    for e in entries:
        means = e.get("means")
        if means is None:
            continue
        if not (isinstance(means, list) and means and all(isinstance(w, str) and w.split() for w in means)):
            raise KnowledgeError("%s: means must be a list of ways (each a string of class names)" % e.get("id"))
        for w in means:
            bad = [n for n in w.split() if n.lstrip("!") not in KNOWN]
            if bad:
                raise KnowledgeError("%s: means %r: unknown classes %s (meaning.KNOWN)" % (e["id"], w, bad))
    # a matcher of the user's words, as symptoms.py's ways are ("symptom" in its site): anchored, at most 600 characters
    # (tests/test_explain_generated.py checks both kinds)
    return [Pattern(ENTRY, "fact", r"^[^\n]{1,%d}" % MAX_LINE, 0, site={"symptom": "meaning", "class": "meaning", "id": "meaning"},
                    needles=NEEDLES)]


def users_line(text):
    """Whether a line is the user's words (no logger/NCCL/traceback/KEY=VALUE/command line, no progress bar).
    A line that starts with a command and goes on in words ('accelerate launch trains on the CPU', 'torchrun
    --nproc_per_node=8 之后 ... 都在 GPU 0') is the user's: a command line has no Chinese and no run of four
    plain words."""
    from gpudoctor.explain.symptoms import _COMMAND, _NOT_USERS

    if _NOT_USERS.search(text) or _NOISE.search(text) or len(_NUMBER.findall(text)) > MAX_NUMBERS:
        return False
    return not _COMMAND.search(text) or bool(_WORDS.search(text))


# a status line a program prints ('GPU 0 util 0% (0-0) power 74/700 W (11%) SM 345 MHz idle') has more numbers than
# a sentence ('with 2 GPUs an epoch takes the same 12 minutes as with 1 GPU')
_NUMBER = re.compile(r"\d{1,20}(?:\.\d{1,20})?")
MAX_NUMBERS = 7
_WORDS = re.compile(r"[\u4e00-\u9fff]|(?<![\w./=-])(?:[a-z']{1,12}\s){3}[a-z']{1,12}(?![\w./=-])")


def record(scan, hit):
    """One candidate line (it holds a needle): kept when it is the user's and a sentence of it has a predicate.
    True when it was kept (scan._reader_kept: a shape of line nothing is kept from stops being handed over)."""
    kept = getattr(scan, "meaning", None)
    if kept is None:
        kept = scan.meaning = []
    if len(kept) >= MAX_KEPT or hit.severity is not None:
        return
    text = hit.text[:MAX_LINE]
    if (kept and kept[-1][0] == hit.line) or not users_line(text):
        return
    live = _live(text)
    if not live & _READABLE:
        return  # no sentence of it can hold a predicate, a GPU index or a figure (classes() would say None for each)
    sents = [c for c in (classes(s, live, topics=True) for s in sentences(text)[:MAX_SENTS]) if c is not None]
    if sents and all(_PREDICATES.isdisjoint(c) for c in sents) and not any(c["idx"] or c["figs"] for c in sents):
        # a line that only names the tool: kept as the sentence before the next line's (found() reads the pair)
        sents = sents[-1:]
    if sents:
        kept.append((hit.line, text, sents))
        return True
    return False


MAX_INSIDE = 16  # matches of one class inside identifiers looked past in a sentence (bounded: linear in it)


def _said(rx, s):
    """Whether a class's regex matches a word of the sentence, not a piece of a snake_case name: a variable,
    option or function name is a name, not the user's word ('TORCH_NCCL_NAN_CHECK=1', the NaN check torch's
    ProcessGroupNCCL reads, printed by a healthy job, is no NaN; 'nan' of 'loss_nan_count' neither). A match that
    holds the underscore itself ('CUDA_VISIBLE_DEVICES') is the name the class is about."""
    for i, m in enumerate(rx.finditer(s)):
        a, b = m.span()
        if "_" in m.group(0) or not ((a and s[a - 1] == "_") or s[b:b + 1] == "_") or i >= MAX_INSIDE:
            return True
    return False


def sentences(text):
    return [s.strip() for s in _SPLIT.split(text[:MAX_LINE]) if s and s.strip()]


def classes(sentence, live=None, topics=False):
    """{class: True, "idx": [GPU indices]} of one sentence, or None (solved, a how-to question, no predicate).
    ``live``: _live() of the sentence or of the line it is part of (only the regexes it names can match).
    ``topics``: a sentence that only names the tool (TOPICS: 'Running our script with mpirun on 2 processes.') is
    kept too, to be read with the next one (record(); no way holds without a predicate)."""
    s = sentence[:MAX_LINE]
    if live is None:
        live = _live(s)
    if ("_solved" in live and _SOLVED.search(s)) or _HOWTO.search(s) or \
            ("_fine" in live and _FINE_SAID.search(s) and not _BESIDE.search(s)):
        return None
    got = {k: True for k, rx in _searched(live) if _said(rx, s)}
    figs = _figures(s) if "_count" in live else []
    if _PREDICATES.isdisjoint(got) and not ("_idx" in live and _IDX.search(s)) and not figs and \
            not (topics and not _TOPICS.isdisjoint(got)):
        return None
    idx = [int(d) for m in _IDX_LIST.finditer(s) for d in re.findall(r"\d{1,2}", m.group(1))][:16]
    for m in _IDX.finditer(s):
        if len(idx) >= 16:
            break
        g = next(x for x in m.groups() if x is not None)
        idx.append(_ORD[g.lower()] if g.lower() in _ORD else int(g))
    got["idx"] = idx
    got["figs"] = figs
    _derive(got)
    return got


# The regexes of a line that can match at all: each class's (and _IDX's, _COUNT's, _SOLVED's, _FINE_SAID's) needles
# (knowledge.needles_of: literals one of which every match holds, as the scan's prefilter reads a pattern), looked for
# in the line once; a class none of whose needles is in the line is not searched in any of its sentences. The answers
# are the same; the cost is that of the classes the line can hold. Red team 2026-11-26e: a line of 190 short
# sentences and one needle ('a. ' * 190 + 'cpux 1') ran all 37 class searches on every sentence, 1.8 ms a line:
# 11.6 MB of such lines took 33 s of CPU against 1.4 s at 67198c6.
_NEEDLED = None
_PREDICATES = frozenset(PREDICATES)
# the subjects that name the tool a complaint is about: a sentence with one of them and no predicate is still read
# with the sentence after it ('I launch it with mpirun on 2 processes. Both print exactly the same thing.')
TOPICS = ("mpi", "fsdp")
_TOPICS = frozenset(TOPICS)
_READABLE = _PREDICATES | {"_idx", "_count"} | _TOPICS  # what a sentence needs one of (classes()), with figures' counts


def _needled():
    global _NEEDLED
    if _NEEDLED is None:
        from gpudoctor.explain.knowledge import needles_of

        rxs = dict(CLASSES, _idx=_IDX.pattern, _count=_COUNT.pattern, _solved=_SOLVED.pattern, _fine=_FINE_SAID.pattern)
        _NEEDLED = [(k, tuple(sorted({n.lower() for n in needles_of(v)}))) for k, v in rxs.items()]
    return _NEEDLED


def _live(text):
    """The names of _needled() whose regex may match in ``text`` (one of its needles is in it, or it has none)."""
    low = text.lower()
    return frozenset(k for k, nd in _needled() if not nd or any(n in low for n in nd))


_SEARCHED = {}


def _searched(live):
    """[(class, regex)] of CLASSES named in ``live``, in CLASSES' order (once per set of names, not per sentence)."""
    if not isinstance(live, frozenset):
        live = frozenset(live)
    got = _SEARCHED.get(live)
    if got is None:
        if len(_SEARCHED) >= 1024:
            _SEARCHED.clear()
        got = _SEARCHED[live] = [(k, _cls(k)) for k in CLASSES if k in live]
    return got


def _figures(s):
    """[(GPU count, kind, value)]: each figure (a percentage, a rate per second, a time) with the nearest GPU count."""
    counts = []
    for m in _COUNT.finditer(s):
        g = (m.group(1) or m.group(2)).lower()
        n = _NUM[g] if g in _NUM else int(g)
        if n < 1:
            continue  # '0 GPUs' ran nothing: no figure is of it (_compare divides by the counts: exit 3 before)
        counts.append(((m.start() + m.end()) // 2, n))
        if len(counts) >= MAX_FIGS:
            break
    if not counts:
        return []
    out = []
    for m in _FIG.finditer(s):
        mid = (m.start() + m.end()) // 2
        n = min(counts, key=lambda c: abs(c[0] - mid))[1]
        kind = "pct" if m.group(2) else "rate" if m.group(3) else "time"
        out.append((n, kind, float(m.group(1))))
        if len(out) >= MAX_FIGS:
            break
    return out


def _compare(c):
    """From two figures of one kind said with different GPU counts: a speed-up under half of the GPUs added
    (no_gain), or a metric that differs (differ); the counts say single / multi."""
    figs = c.get("figs") or []
    for n, _k, _v in figs:
        c["single" if n == 1 else "multi"] = True
    for n1, k1, v1 in figs:
        for n2, k2, v2 in figs:
            if k1 != k2 or not n1 < n2 or v1 <= 0 or v2 <= 0:
                continue
            if k1 == "pct":
                if c.get("loss") and v1 != v2:
                    c["differ"] = True
                continue
            speedup = v2 / v1 if k1 == "rate" else v1 / v2
            if speedup < 0.5 * n2 / n1:
                c["no_gain"] = True


def _derive(c):
    _compare(c)
    idx = c["idx"]
    if idx:
        c["gpu"] = True
    if 0 in idx:
        c["gpu0"] = True
    # one GPU index for several things: said twice, or with all/both/every ('all on gpu0', '都在 GPU 0')
    if c.get("same_words") or (idx and len(set(idx)) == 1 and (len(idx) >= 2 or c.get("all_q"))):
        c["same_gpu"] = True
    # an idle GPU told apart from the rest: the others, one of them, two indices, or one index said alone
    # ('GPU1 sits at 0% while GPU0 is at 100%', 'my second gpu is not working'); not 'both GPUs spin at 100% with 0 ...'
    if c.get("idle") and (c.get("others") or c.get("a_gpu") or len(set(idx)) >= 2 or (idx and not c.get("all_q"))):
        c["contrast"] = True


def merged(a, b):
    """The classes of two sentences read together (the indices of both)."""
    out = dict(a)
    out.update({k: v for k, v in b.items() if k != "idx"})
    out.pop("_ctx", None)  # (found()'s context of a window, set on the windows it reads)
    out["idx"] = list(a["idx"]) + list(b["idx"])
    for k in ("same_gpu", "contrast", "gpu0", "no_gain", "differ"):
        out.pop(k, None)
        if a.get(k) or b.get(k):
            out[k] = True
    out["figs"] = (a.get("figs") or []) + (b.get("figs") or [])
    _compare(out)
    return out


def holds(way, c):
    for name in way:
        if name.startswith("!!"):
            # absent from the whole line and the sentence before it too (found() sets _ctx): 'I have nan in the
            # losses. It happens only when I use multiple GPUs.' is no single-GPU NaN
            if (c.get("_ctx") or c).get(name[2:]):
                return False
        elif name.startswith("!"):
            if c.get(name[1:]):
                return False
        elif not c.get(name):
            return False
    return True


def rules_of(kb):
    """[(symptom id, [way, ...])] of the entries with `means`, in the order the entries give (`means_order`,
    then the table's order)."""
    got = [(e.get("means_order", 100), i, e["id"], [w.split() for w in e["means"]])
           for i, e in enumerate(kb.entries) if e.get("means")]
    return [(eid, ways) for _o, _i, eid, ways in sorted(got)]


def symptom_of(c, rules, evidenced=frozenset()):
    """(symptom id, way index, classes in the way) of the first rule that holds for classes c, else None.
    ``evidenced``: the entries a cause of which has its evidence in the text (the class `ev` of their ways)."""
    for eid, ways in rules:
        ce = dict(c, ev=True) if eid in evidenced else c
        for wi, way in enumerate(ways):
            if holds(way, ce):
                return eid, wi, len(way)
    return None


def evidenced(scan, rules):
    """The entries of ``rules`` with a way that needs `ev` and a cause whose evidence the scan found."""
    need = {eid for eid, ways in rules if any("ev" in w for w in ways)}
    ev = getattr(scan, "evidence", None) or {}
    return frozenset(eid for (eid, ci), hits in ev.items() if eid in need and hits and isinstance(ci, int))


def _topic_only(c):
    return _PREDICATES.isdisjoint(c) and not c["idx"] and not c["figs"]


def found(scan, kb):
    """[(symptom id, line, text, score)] read from the kept lines: per sentence, then each sentence with the
    next one of the same or the next kept line (one paragraph), the first window of each symptom."""
    kept = getattr(scan, "meaning", None)
    if not kept:
        return []
    rules = rules_of(kb)
    if not rules:
        return []
    out, seen = [], set()
    evd = evidenced(scan, rules)
    prev_line, prev = None, None
    for line, text, sents in kept:
        windows = list(sents) + [merged(a, b) for a, b in zip(sents, sents[1:])]
        near = prev is not None and line - prev_line <= NEAR
        if near:
            windows.append(merged(prev, sents[0]))
        # a sentence that only names the tool (TOPICS) is read with the next one first: 'with mpirun ...' then 'each
        # trains on the whole data set' is the MPI symptom before the sentence alone is the sampler's; the next one
        # of the same line or of the next line alike (each sentence with its successor, never with itself), so
        # one line and the same words over two lines give one answer
        seq = ([prev] if near else []) + list(sents)
        first = [merged(a, b) for a, b in zip(seq, seq[1:]) if _topic_only(a)]
        windows = first + windows
        ctx = sents[0]
        for x in ([prev] if near else []) + list(sents[1:]):
            ctx = merged(ctx, x)
        for c in windows:
            c["_ctx"] = ctx
            got = symptom_of(c, rules, evd)
            if got and got[0] not in seen:
                seen.add(got[0])
                # score 1: below every `words` way (symptoms.found: a hand-written phrasing is the surer reading)
                out.append((got[0], line, text, 1))
                break
        prev_line, prev = line, sents[-1]
    return out
