# Replays every recorded point through fasim's model with each thread block on
# the SM the GPU put it (launch-placement-2026-11-23.sh measured them) and the
# SMs on the L2 halves the GPU's SM map says. Needs a fasim built with
# launch-placement-experiment-2026-11-23.patch applied (FASIM names it).
# Run from the repository root:
#   FASIM=build/exp/bin/fasim MODE=measured python3 docs/results/launch-placement-replay-2026-11-23.py OUTDIR
# MODE=turn replays the points one by one as fasim deals blocks today (the
# same numbers as `fasim compare --recorded` on each whole file). DDIR
# names a folder of device profiles to use instead of docs/results (to try
# [l2] ways = 64, say). One CSV per point goes to OUTDIR.
import csv,json,subprocess,re,os,sys,glob
from multiprocessing import Pool
F=os.environ.get('FASIM','build/exp/bin/fasim'); R='docs/results'; OUT=sys.argv[1]; os.makedirs(OUT,exist_ok=True)
DDIR=os.environ.get('DDIR',R)
SETS=[("h200-2026-11-22-sweep.csv","h200-2026-11-22-measured.toml"),("h100-2026-11-22-sweep.csv","h100-2026-11-22-measured.toml"),
("h200-2026-11-23-placements8.csv","h200-2026-11-22-measured.toml"),("h100-2026-11-23-placements8.csv","h100-2026-11-22-measured.toml"),
("h200-2026-11-22-holdout-3.csv","h200-2026-11-21-measured.toml"),("h100-2026-11-22-holdout-2.csv","h100-2026-11-22-measured.toml"),
("h200-2026-11-22-holdout-time.csv","h200-2026-11-22-measured.toml"),("h100-2026-11-22-holdout-time.csv","h100-2026-11-22-measured.toml"),
("h200-2026-11-23-holdout-steps.csv","h200-2026-11-22-measured.toml"),("h100-2026-11-23-holdout-steps.csv","h100-2026-11-22-measured.toml"),
("h200-2026-11-22-tile-steps.csv","h200-2026-11-22-measured.toml"),("h200-2026-11-22-fp32-occupancy.csv","h200-2026-11-22-measured.toml")]
MODE=os.environ.get('MODE','measured')  # measured | turn (fasim today)
def load(g):
    half={}
    for l in open(f'{R}/{g}-2026-11-23-sm-map.txt'):
        m=re.match(r'SM rep=0 smid=(\d+) mean_cycles=\d+ slow_share=([\d.]+)', l)
        if m: half[int(m[1])]=1 if float(m[2])>0.25 else 0
    place={}
    for l in open(f'{R}/{g}-2026-11-23-launch-placement.txt'):
        if not l.startswith('PLACE') or 'rep=0' not in l: continue
        h,v=l.split(':',1); m=re.search(r'grid=(\d+) threads=(\d+) per_sm=(\d+)',h)
        place[(int(m[1]),int(m[2]),int(m[3]))]=v.split()
    return [half[i] for i in range(132)],place
LAY={g:load(g) for g in ('h100','h200')}
def job(a):
    si,(setf,dev),key,rows=a
    g=setf[:4]; hm,place=LAY[g]
    algo,dt,b,h,n,d,br,bc=key
    env=dict(os.environ)
    if MODE=='measured':
        j=json.loads(subprocess.run([F,'run','--algo',algo,'--dtype',dt,'--batch',b,'--heads',h,'--N',n,'--d',d,'--br',br,'--bc',bc,'--device',f'{DDIR}/{dev}','--no-numerics','--json'],capture_output=True,text=True).stdout)
        env['FASIM_SM_HALF']=','.join(map(str,hm))
        for k,kk in enumerate(j['time']['kernels']):
            thr=int(br)*2 if (algo=='flash2' and dt!='fp32' and br in('64','128') and bc in('64','128') and d in ('64','128')) else 256
            v=place.get((kk['grid'],thr,kk['blocks_per_sm']))
            if v: env[f'FASIM_BLOCK_SM_{k}']=','.join(v)
            else: print('no placement for',setf,key,k,file=sys.stderr)
    tag='%d-%s'%(si,'-'.join(key))
    inp=f'{OUT}/in/{tag}.csv'; os.makedirs(f'{OUT}/in',exist_ok=True)
    with open(inp,'w') as f: f.write(rows[0]); f.writelines(rows[1:])
    subprocess.run([F,'compare','--recorded',inp,'--device',f'{DDIR}/{dev}','--out',f'{OUT}/{si+1}-{setf[:14]}-{tag}.csv'],env=env,capture_output=True)
jobs=[]
for si,(setf,dev) in enumerate(SETS):
    lines=open(f'{R}/{setf}').read().splitlines(True)
    hdr=[l for l in lines if l.startswith('device,')][0]; pre=lines[:lines.index(hdr)]
    cols=hdr.strip().split(','); byk={}
    for l in lines[lines.index(hdr)+1:]:
        r=dict(zip(cols,l.strip().split(',')))
        byk.setdefault((r['algo'],r['dtype'],r['batch'],r['heads'],r['N'],r['d'],r['br'],r['bc']),[]).append(l)
    for k,ls in byk.items(): jobs.append((si,(setf,dev),k,pre+[hdr]+ls))
with Pool(2) as p: p.map(job,jobs)
