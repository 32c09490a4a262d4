#!/usr/bin/env python3
# Find include circles between the modules of the plugin and of the
# simulator, and check that the plugin's folders are layers that only
# look down.  Exits 1 if it finds a circle, 0 if not; prints the layer
# order it found either way.
#
#   scripts/include-cycles.py            (from anywhere in the tree)
#   scripts/include-cycles.py -v         (every module and its includes)
#
# A module is a .c file with the header of the same name: NAME.c and
# NAME.h in one folder of the plugin (plugins/raid/**), or
# raidsim/*/NAME.c and include/raidsim/NAME.h (or a header beside it) in
# the simulator.  A header without a .c of its name is a module of its
# own.  Module A uses module B when one of A's files includes one of
# B's headers ("..." includes only, resolved as the compiler does: the
# including file's folder first, then plugins/raid/, then include/).
# Since a module's .c includes its own header, a circle of headers is
# a circle too, and so is "a.c includes b.h and b.c includes a.h",
# which include guards hide from the compiler but not from a reader.
#
# The plugin's folders (member/, md/, io/, sync/, ctl/, model/ and the
# nbdkit glue at the top) must also use each other without a circle:
# a folder uses another when one of its modules uses one of the other's.
#
# meson test include-cycles runs this (tests/unit/meson.build); an
# include added back that closes a circle, such as io/read.c including
# "sync/rebuild.h" or md/superblock.c including "md/failure.h", fails it.
import os
import re
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # | head ends it quietly

top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
verbose = '-v' in sys.argv[1:]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def files_under(*dirs):
    out = []
    for d in dirs:
        for root, _, names in os.walk(os.path.join(top, d)):
            for n in sorted(names):
                if n.endswith(('.c', '.h')):
                    out.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(out)


def includes(path, search):
    """The project headers path includes: (line number, resolved path)."""
    found = []
    with open(os.path.join(top, path), encoding='utf-8', errors='replace') as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            for d in [os.path.dirname(path)] + search:
                cand = os.path.normpath(os.path.join(d, m.group(1)))
                if os.path.isfile(os.path.join(top, cand)):
                    found.append((lineno, cand))
                    break
    return found


def graph(files, module_of, search):
    """Module -> {used module: (file, line, header)}, the first include."""
    g = {}
    for f in files:
        a = module_of(f)
        g.setdefault(a, {})
        for lineno, h in includes(f, search):
            if h not in files:
                continue            # another half's header: not this graph
            b = module_of(h)
            g.setdefault(b, {})
            if b != a and b not in g[a]:
                g[a][b] = (f, lineno, h)
    return g


def sccs(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def one_circle(g, comp):
    """A shortest circle through the component's first module."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(g[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                path.reverse()
                return path + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [comp[0]]


def report(name, g):
    bad = [c for c in sccs(g) if len(c) > 1]
    for c in bad:
        print('%s: include circle among %d modules: %s' % (name, len(c), ' '.join(c)))
        path = one_circle(g, c)
        for a, b in zip(path, path[1:]):
            f, line, h = g[a][b]
            print('  %s uses %s: %s:%d includes %s' % (a, b, f, line, h))
    return bad


def layer_order(g):
    """The modules (or folders) from the bottom up: each after all it uses."""
    done, order = set(), []
    pending = sorted(g)
    while pending:
        ready = [v for v in pending if all(w in done for w in g[v])]
        if not ready:                   # a circle: reported elsewhere
            ready = pending
        order.append(ready)
        done.update(ready)
        pending = [v for v in pending if v not in done]
    return order


def show(g):
    for v in sorted(g):
        print('  %s -> %s' % (v, ' '.join(sorted(g[v])) or '-'))


status = 0

# ---- the plugin ----
plugin_root = 'plugins/raid'
pfiles = set(files_under(plugin_root))


def plugin_module(path):
    return os.path.splitext(os.path.relpath(path, plugin_root))[0]


pg = graph(sorted(pfiles), plugin_module, [plugin_root, 'include'])
if report('plugin', pg):
    status = 1


def folder(module):
    d = os.path.dirname(module)
    return d if d else '.'


fg = {}
for a, uses in pg.items():
    fg.setdefault(folder(a), {})
    for b, why in uses.items():
        fa, fb = folder(a), folder(b)
        fg.setdefault(fb, {})
        if fa != fb and fb not in fg[fa]:
            fg[fa][fb] = why
if report('plugin folders', fg):
    status = 1
print('plugin layers, bottom first (each uses only those before it):')
for i, layer in enumerate(layer_order(fg)):
    print('  %d. %s' % (i + 1, ', '.join(f + '/' if f != '.' else '(top: the nbdkit glue)' for f in layer)))
if verbose:
    print('plugin modules:')
    show(pg)

# ---- the simulator ----
sfiles = set(files_under('raidsim', 'include/raidsim'))
sources = {}
for f in sfiles:
    if f.endswith('.c'):
        sources.setdefault(os.path.splitext(os.path.basename(f))[0], []).append(f)


def sim_module(path):
    base = os.path.splitext(os.path.basename(path))[0]
    if path.endswith('.c'):
        return os.path.splitext(path)[0]
    # A header: the module of the .c of its name beside it, or the one
    # .c of its name in raidsim/ for include/raidsim/NAME.h.
    beside = os.path.splitext(path)[0] + '.c'
    if beside in sfiles:
        return os.path.splitext(beside)[0]
    if path.startswith('include/') and len(sources.get(base, [])) == 1:
        return os.path.splitext(sources[base][0])[0]
    return os.path.splitext(path)[0]


sg = graph(sorted(sfiles), sim_module, ['include'])
if report('simulator', sg):
    status = 1
if verbose:
    print('simulator modules:')
    show(sg)

print('include-cycles: %s' % ('circles found' if status else
                              'no include circle in the plugin or the simulator'))
sys.exit(status)
