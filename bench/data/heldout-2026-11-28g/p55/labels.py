import glob, json, tomllib
vals=set()
def walk(o):
    if isinstance(o,dict):
        for k,v in o.items():
            if k in ('id','family') and isinstance(v,str): vals.add(v)
            else: walk(v)
    elif isinstance(o,list):
        for x in o: walk(x)
for f in glob.glob('/work/main/gpudoctor/data/knowledge/**/*', recursive=True):
    try:
        if f.endswith('.toml'): walk(tomllib.load(open(f,'rb')))
        elif f.endswith('.json'): walk(json.load(open(f)))
    except Exception: pass
print('\n'.join(sorted(vals)))
