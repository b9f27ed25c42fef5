import json, subprocess, glob, collections
B='/tmp/heldout-p29'
C=[json.loads(l) for l in open(f'{B}/explain_heldout_p29.jsonl')]
bad=[]
# 1) URLs
urls=[c['url'] for c in C]
open(f'{B}/.urls','w').write('\n'.join(urls)+'\n')
r=subprocess.run(['grep','-rhoF','-f',f'{B}/.urls','/work/main','--exclude-dir=.git','--exclude-dir=.venv']+[],capture_output=True,text=True)
hit=set(r.stdout.split('\n'))-{''}
for f in glob.glob('/work/main/bench/data/explain_heldout_*.jsonl'):
    s=open(f).read()
    hit|={u for u in urls if u in s}
for u in hit: bad.append('url seen: '+u)
# 2) every-line-seen check
pats={}
for c in C:
    mids=[]
    for l in c['text'].split('\n'):
        l=l.strip()
        if len(l)>=16:
            m=len(l)//2; mid=l[max(0,m-20):m+20]
            mids.append(mid)
    pats[c['id']]=mids
allp=sorted({m for v in pats.values() for m in v})
open(f'{B}/.mids','w').write('\n'.join(allp)+'\n')
r=subprocess.run(['grep','-rhoF','-f',f'{B}/.mids','/work/main/fixtures','/work/main/tests','/work/main/bench'],capture_output=True,text=True)
found=set(r.stdout.split('\n'))
for cid,mids in pats.items():
    if mids and all(m in found for m in mids): bad.append('all lines seen: '+cid)
# 3) per-source cap (thread sets only; this set is planted)
cnt=collections.Counter(c['source_repo'] for c in C if not c['url'].startswith('planted:'))
for k,v in cnt.items():
    if v>2: bad.append(f'source {k} has {v}')
print(len(C),'cases checked')
print('BAD: '+'; '.join(bad))
