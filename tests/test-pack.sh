#!/bin/sh
# `cradle pack` end to end (docs/model-format.md, "Packings"): a jittered
# cubic block deposited in a box of walls under gravity and relaxed; the packed
# model file reads back; LAMMPS (`lmp`, when installed; else a parser in
# Python) reads the data file with the same atom count and positions; the
# touching network counted here from the data file's positions (|gap| <=
# 1e-9 min r) is the one pack reports, and no pair or wall overlaps beyond
# the tolerance; refusals are one line, exit 3 and no file.
set -u
CRADLE=$1
. "$(dirname "$0")/shell-lib.sh"

cat > dep.yaml <<'YAML'
name: deposit
lattice:
  kind: cubic
  count: [2, 2, 2]
  radius: 0.01
  density: 1000
  gap: 0.002
  jitter: {distribution: uniform, size: 0.0005, seed: 3}
  box: {size: [0.05, 0.05, 0.2]}
fields: {gravity: [0, 0, -9.81]}
contact: {material: {E: 1.0e7, nu: 0.3}, restitution: 0.2}
integration: {t_end: 3, rtol: 1.0e-6}
YAML

"$CRADLE" pack dep.yaml -o packed.yaml --lammps packed.data > pack.txt 2>&1 \
    && grep -q "^packed 8 spheres" pack.txt && [ -s packed.yaml ] && [ -s packed.data ] \
    && ok "pack: 8 spheres settled and relaxed, both files written" \
    || bad "pack: $(cat pack.txt)"
"$CRADLE" run packed.yaml -o back.h5 --set integration.t_end=1e-4 > back.txt 2>&1 \
    && grep -q "8 spheres, 5 walls" back.txt \
    && ok "the packed model file runs: 8 spheres, the 5 box walls" || bad "run packed: $(cat back.txt)"

# The packed files against each other and against pack's report: positions as
# LAMMPS read them (or as a parser of the Atoms section reads them) equal to
# the model file's; the touching network counted from them (|gap| <= 1e-9
# min r) the one pack reports; no pair or wall overlapping beyond 1e-9 r.
check_network() { # NAME N: NAME.yaml, NAME.data, NAME.txt (pack's output)
    name=$1
    want=$2
    if command -v lmp >/dev/null 2>&1; then
        printf 'units si\natom_style sphere\nboundary f f f\nread_data %s.data\nwrite_dump all custom dump.txt id x y z diameter modify sort id format float %%.17g\n' "$name" > in.lmp
        lmp -in in.lmp -log none -screen none > lmp.txt 2>&1 && reader=lammps || reader=failed
    else
        reader=python
    fi
    "$PY" - "$reader" "$name" > net.txt 2>&1 <<'PY'
import sys, math, yaml
reader, name = sys.argv[1], sys.argv[2]
if reader == "failed":
    sys.exit("LAMMPS did not read the data file")
if reader == "lammps":
    lines = open("dump.txt").read().split("ITEM: ATOMS")[1].splitlines()[1:]
    atoms = [[float(v) for v in l.split()] for l in lines if l.strip()]
    atoms = [(a[1], a[2], a[3], a[4] / 2) for a in atoms]
else:
    text = open(name + ".data").read().split("Atoms # sphere")[1].strip().splitlines()
    atoms = [[float(v) for v in l.split()] for l in text]
    atoms = [(a[4], a[5], a[6], a[2] / 2) for a in atoms]
model = yaml.safe_load(open(name + ".yaml"))
bodies = model["bodies"]
assert len(atoms) == len(bodies), (len(atoms), len(bodies))
for a, b in zip(atoms, bodies):
    assert all(abs(a[k] - b["x"][k]) <= 1e-15 for k in range(3)) and a[3] == b["radius"], (a, b)
pairs = walls = worst = 0
touches = [0] * len(atoms)
for i in range(len(atoms)):
    for j in range(i + 1, len(atoms)):
        xi, xj = atoms[i], atoms[j]
        g = math.dist(xi[:3], xj[:3]) - xi[3] - xj[3]
        eps = 1e-9 * min(xi[3], xj[3])
        pairs += abs(g) <= eps
        if abs(g) <= eps:
            touches[i] += 1
            touches[j] += 1
        worst = max(worst, -g / eps)
    for w in model["walls"]:
        n, off = w["normal"], w["offset"]
        g = sum(n[k] * atoms[i][k] for k in range(3)) - off - atoms[i][3]
        walls += abs(g) <= 1e-9 * atoms[i][3]
        touches[i] += abs(g) <= 1e-9 * atoms[i][3]
        worst = max(worst, -g / (1e-9 * atoms[i][3]))
print(reader, len(atoms), pairs, walls, worst, touches.count(0))
PY
    read -r rd natoms npairs nwalls worst loose < net.txt
    grep -q "^packed $want spheres.* $npairs pairs and $nwalls wall contacts touching" "$name.txt" \
        && [ "$natoms" = "$want" ] \
        && ok "$name: $rd reads $want atoms at the packed positions; $npairs pairs + $nwalls wall contacts touch within 1e-9 r as pack reports" ref \
        || bad "$name: network from the data file ($(cat net.txt)) vs pack ($(cat "$name.txt"))"
    "$PY" -c "import sys; sys.exit(not float('$worst') <= 1.0)" \
        && ok "$name: no pair or wall overlaps beyond the geometric tolerance" ref \
        || bad "$name: overlap of $worst eps"
    # deposited, not left hanging: every sphere rests on a sphere or a wall
    [ "$loose" = 0 ] && [ "$npairs" -ge 1 ] \
        && ok "$name: every sphere touches a sphere or a wall, $npairs pairs touch" \
        || bad "$name: $loose spheres touch nothing, $npairs pairs touch"
}
mv pack.txt packed.txt
check_network packed 8
grep -q "every settled contact kept" packed.yaml && grep -q " 0 opened" packed.txt \
    && ok "8 spheres: the bilateral projection kept every settled contact" \
    || bad "8 spheres: $(head -5 packed.yaml)"

# 12 spheres wedged between the walls: the bilateral projection stalls, the
# geometric settling takes over (opened contacts are reported)
sed -e 's/count: \[2, 2, 2\]/count: [3, 2, 2]/' -e 's/size: \[0.05, 0.05, 0.2\]/size: [0.066, 0.05, 0.2]/' dep.yaml > wedged.yaml
"$CRADLE" pack wedged.yaml -o wedged.yaml.out --lammps wedged.data > wedged.txt 2>&1 \
    && mv wedged.yaml.out wedged.yaml && grep -q "by geometric settling" wedged.yaml \
    && ok "12 wedged spheres: relaxed by geometric settling" || bad "wedged: $(cat wedged.txt)"
check_network wedged 12

# refusals: one line, exit 3, no file
refuse() {
    label=$1
    want=$2
    shift 2
    rm -f out.yaml out.data
    "$CRADLE" pack "$@" -o out.yaml --lammps out.data > err.txt 2>&1
    st=$?
    [ "$st" -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -qF -e "$want" err.txt \
        && [ ! -e out.yaml ] && [ ! -e out.data ] \
        && ok "refused, $label: exit 3, one line, no file" \
        || bad "$label: status $st: $(cat err.txt)"
}
sed 's/size: \[0.05, 0.05, 0.2\]/size: [0.03, 0.05, 0.2]/' dep.yaml > tight.yaml
refuse "a block that cannot fit its box" "tight.yaml:9: lattice.box.size: the block does not fit" \
    tight.yaml
refuse "a block that cannot fit its box (--set)" \
    "--set lattice.box.size=[0.03,0.05,0.2]: lattice.box.size: the block does not fit" \
    dep.yaml --set lattice.box.size=[0.03,0.05,0.2]
sed -e 's/kind: cubic/kind: random/' -e 's/count: \[2, 2, 2\]/count: 100/' -e '/gap:/d' -e '/jitter:/d' dep.yaml > full.yaml
refuse "random insertion that cannot fit" "full.yaml:4: lattice.count: the spheres do not fit" \
    full.yaml
printf 'lattice: {kind: cubic, count: [2, 2, 2], radius: 0.01, mass: 0.01}\ncontact: {K: 1.0e6}\n' > nog.yaml
refuse "no gravity" "fields.gravity: deposition needs gravity" nog.yaml

# --striker: a sphere aimed at the open top, GAP above the packing's extent
sed -e 's/count: \[2, 2, 2\]/count: [2, 1, 2]/' -e 's/size: \[0.05, 0.05, 0.2\]/size: [0.05, 0.03, 0.2]/' dep.yaml > small.yaml
"$CRADLE" pack small.yaml -o struck.yaml --striker z+,1.5,1e-4 > st.txt 2>&1 \
    && grep -q "a striker added" st.txt \
    && "$PY" -c '
import sys, yaml
b = yaml.safe_load(open("struck.yaml"))["bodies"]
s, rest = b[-1], b[:-1]
top = max(p["x"][2] + p["radius"] for p in rest)
ok = len(b) == 5 and abs(s["x"][2] - s["radius"] - top - 1e-4) < 1e-12 and s["v"] == [0, 0, -1.5]
ok = ok and all("v" not in p for p in rest)
sys.exit(not ok)' \
    && ok "--striker z+: the last body, 1e-4 m above the packing, moving down at 1.5 m/s, the rest at rest" \
    || bad "--striker: $(cat st.txt)"
rm -f struck.yaml
"$CRADLE" pack small.yaml -o struck.yaml --striker x-,1,0 > err.txt 2>&1
[ $? -eq 3 ] && [ ! -e struck.yaml ] && grep -q "outside wall 0" err.txt \
    && ok "--striker x- into the box's wall: exit 3, no file" || bad "--striker x-: $(cat err.txt)"
"$CRADLE" pack small.yaml -o struck.yaml --striker w-,1,0 > err.txt 2>&1
[ $? -eq 2 ] && ok "--striker with an unknown face: exit 2" || bad "--striker w-: $(cat err.txt)"

# --no-deposit: a generated block with its striker written explicit; the
# explicit file runs to the same final velocities (bit for bit), and LAMMPS
# reads the striker's velocity from the Velocities section
printf 'name: block\nlattice: {kind: fcc, count: [3, 3, 3], radius: 0.01, density: 7800,\n  striker: {face: x-, speed: 1.0, gap: 1.0e-4}}\ncontact: {material: {E: 2.0e11, nu: 0.3}}\n' > block.yaml
"$CRADLE" pack block.yaml --no-deposit -o blockx.yaml --lammps blockx.data > nd.txt 2>&1 \
    && grep -q "^wrote 15 bodies as given" nd.txt \
    && "$CRADLE" run block.yaml -o b1.h5 > b1.txt 2>&1 && "$CRADLE" run blockx.yaml -o b2.h5 > b2.txt 2>&1 \
    && [ -n "$(grep 'final velocities' b1.txt)" ] \
    && [ "$(grep 'final velocities' b1.txt)" = "$(grep 'final velocities' b2.txt)" ] \
    && h5diff b1.h5 b2.h5 /final/velocity /final/velocity > /dev/null \
    && ok "--no-deposit: the explicit block runs to the generated block's final velocities (bit for bit)" self \
    || bad "--no-deposit: $(cat nd.txt b1.txt b2.txt | head -20)"
if command -v lmp >/dev/null 2>&1; then
    printf 'units si\natom_style sphere\nboundary f f f\nread_data blockx.data\nwrite_dump all custom vdump.txt id vx vy vz modify sort id format float %%.17g\n' > inv.lmp
    lmp -in inv.lmp -log none -screen none > lmpv.txt 2>&1 \
        && [ "$(sed -n '10p' vdump.txt)" = "1 1 0 0" ] && [ "$(sed -n '11p' vdump.txt)" = "2 0 0 0" ] \
        && ok "LAMMPS reads the striker's velocity (1, 0, 0) m/s and the block at rest" \
        || bad "LAMMPS velocities: $(head -12 vdump.txt) $(tail -3 lmpv.txt)"
fi

# usage: help, a missing -o, one file named twice, a folder that does not exist
"$CRADLE" help pack > help.txt 2>&1 && grep -q "^usage: cradle pack MODEL -o PACKED.yaml" help.txt \
    && ok "cradle help pack prints its usage" || bad "help pack: $(cat help.txt)"
"$CRADLE" pack dep.yaml > err.txt 2>&1
[ $? -eq 2 ] && grep -q "give one MODEL and -o PACKED.yaml" err.txt \
    && ok "pack without -o: exit 2" || bad "pack without -o: $(cat err.txt)"
"$CRADLE" pack dep.yaml -o same.yaml --lammps same.yaml > err.txt 2>&1
[ $? -eq 2 ] && [ ! -e same.yaml ] && ok "-o and --lammps naming one file: exit 2, no file" \
    || bad "same file: $(cat err.txt)"
"$CRADLE" pack dep.yaml -o a.yaml -o b.yaml > err.txt 2>&1
[ $? -eq 2 ] && [ ! -e a.yaml ] && [ ! -e b.yaml ] && grep -q "pack: -o given twice" err.txt \
    && ok "-o given twice: exit 2, no file" || bad "-o twice: $(cat err.txt)"
"$CRADLE" pack dep.yaml -o p.yaml --ke 0 > err.txt 2>&1
[ $? -eq 2 ] && grep -q "pack: --ke needs a positive number (got '0')" err.txt \
    && ok "--ke 0: exit 2 naming the option" || bad "--ke 0: $(cat err.txt)"
"$CRADLE" pack dep.yaml -o nowhere/p.yaml > err.txt 2>&1
[ $? -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && ok "an output in a missing folder: exit 3 before any work" \
    || bad "missing folder: $(cat err.txt)"
finish test-pack
