#!/usr/bin/env python3
"""Counts the recorded points in their bars under two predictions, old/ and
new/ (each a folder of `fasim compare --recorded --out` CSVs, one a set), and
lists the points outside their bar whose error grew. Run by
l2-lines-2026-12-01-score.sh, in the folder that holds old/ and new/."""
import csv,glob,os,collections
def load(d):
    r={}
    for f in glob.glob(d+'/*.pts.csv'):
        for row in csv.DictReader(open(f)):
            if not row.get('measured') or not row.get('predicted'): continue
            m=float(row['measured']); p=float(row['predicted'])
            if m<=0: continue
            key=(os.path.basename(f),)+tuple(row[k] for k in ('algo','dtype','batch','heads','N','d','br','bc','l2_mode','blocks_per_sm'))
            r[(key,row['metric'])]=(p-m)/m*100
    return r
import sys
old,new=load(sys.argv[1] if len(sys.argv)>1 else 'old'),load(sys.argv[2] if len(sys.argv)>2 else 'new')
bars={'dram_read_bytes':10,'dram_write_drained_bytes':10,'dram_write_bytes':10,'time_s':25,'l2_read_bytes':10}
c=collections.Counter()
worse=[];better=[]
for k,e in new.items():
    met=k[1]
    if met not in bars: continue
    if k not in old: continue
    o=old[k]; b=bars[met]
    c[(met,'n')]+=1; c[(met,'old')]+=abs(o)<=b; c[(met,'new')]+=abs(e)<=b
    if abs(e)>b and abs(e)>abs(o)+0.01: worse.append((k,o,e))
    if abs(o)>b and abs(e)<=b: better.append((k,o,e))
for met in bars: print(met, c[(met,'n')], 'in bar old', c[(met,'old')], 'new', c[(met,'new')])
print('worse (outside bar and grew):',len(worse))
for k,o,e in sorted(worse, key=lambda x:x[0][1]):
    if k[1]!='time_s': print('  %-45s %-26s %s %+.1f -> %+.1f'%(k[0][0][:45],k[1],' '.join(k[0][1:8]),o,e))
print('newly in bar:',len(better))
