#!/usr/bin/env python3
"""The house stays as drawn (docs/design.md, "Folders"): every file of src/ and
include/cradle/ includes only its own folder's private headers (*-priv.h) and
headers of its own layer or a layer below; tools/ and the tests' own code see
the public headers only. Prints "layers: N passed, N failed" (one check a file)."""
import os, re, sys

# bottom to top; engines' rooms: common below the engines, the factory above them
LAYERS = ['base', 'model', 'laws', 'system', 'engines/common', 'engines/compliant',
          'engines/rigid', 'engines', 'monitor', 'calibrate', 'tables', 'compare',
          'sweep', 'store', 'fit', 'cradle.h']
PUBLIC = {  # public header -> the layer that implements it
    'common.h': 'base', 'contact.h': 'model', 'model.h': 'model', 'modelfile.h': 'model',
    'laws.h': 'laws', 'lawcase.h': 'laws', 'event.h': 'system', 'system.h': 'system',
    'engine.h': 'system', 'rigid.h': 'system', 'monitor.h': 'monitor',
    'calibrate.h': 'calibrate', 'calibrated.h': 'calibrate', 'table.h': 'tables', 'sweepoutput.h': 'tables',
    'compare.h': 'compare', 'rigidlimit.h': 'compare', 'sweep.h': 'sweep',
    'sweepfile.h': 'sweep', 'store.h': 'store', 'runfile.h': 'store', 'comparefile.h': 'store', 'fit.h': 'fit', 'cradle.h': 'cradle.h'}
SIBLINGS = {('engines/compliant', 'engines/rigid'), ('engines/rigid', 'engines/compliant'),
            ('sweep', 'store'), ('store', 'sweep')}
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')

def layer_of(path):  # path relative to src/ or 'cradle/x.h'
    if path.startswith('cradle/'):
        return PUBLIC.get(path[7:])
    d = os.path.dirname(path)
    return d if d in LAYERS else None

def problems(top, rel, text, own):
    here = f'{top}/{rel}'
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        target = layer_of(inc)
        if own is None:  # tools, tests: public headers and their own files only
            if inc.startswith(('src/', '../src')) and 'nvector-small' not in inc:
                yield f'{here}: includes the library\'s private {inc}'
            continue
        if target is None:
            if not inc.startswith('cradle/') and not os.path.exists(os.path.join(root, 'src', inc)):
                if inc != 'cr-config.h':
                    yield f'{here}: includes {inc}, which is in no layer'
            continue
        if inc.endswith('-priv.h') and os.path.dirname(inc) != os.path.dirname(rel):
            yield f'{here}: includes another folder\'s private header {inc}'
        elif LAYERS.index(target) > LAYERS.index(own) and (own, target) not in SIBLINGS:
            yield f'{here}: layer {own} includes {inc} of the higher layer {target}'
        elif (own, target) in SIBLINGS and own != target:
            yield f'{here}: {own} includes {inc} of its sibling {target}'

passed = failed = 0
for top, own_of in (('src', lambda r: layer_of(r)), ('include', lambda r: PUBLIC.get(r[7:], 'missing')),
                    ('tools', lambda r: None), ('tests', lambda r: None), ('bench', lambda r: None)):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if not f.endswith(('.c', '.h', '.cpp')):
                continue
            rel = os.path.relpath(os.path.join(d, f), os.path.join(root, top if top != 'include' else 'include'))
            own = own_of(rel)
            if top == 'src' and own is None:
                bad = [f'src/{rel}: in no layer folder']
            elif own == 'missing':
                bad = [f'include/{rel}: public header mapped to no layer (tests/check-layers.py PUBLIC)']
            else:
                bad = list(problems(top, rel, open(os.path.join(d, f), errors='replace').read(), own))
            for b in bad:
                print('not ok', b)
            failed += bool(bad)
            passed += not bad
print(f'layers: {passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
