#!/usr/bin/env python3
"""The library's layers include one way only, and the CLI uses the installed API alone.

  format/      bytes <-> values: includes format/ only
  store/       the engine: format/ and store/*.h (none of its sub-folders)
  store/git/   the engine and store/git/
  store/kv/    the engine and store/kv/
  store/capi/  the engine, store/git/, store/kv/ and store/capi/
  cli/         cli/ and the headers the library installs (given on the command line)

Usage: layering_test.py SOURCE_ROOT INSTALLED_HEADER...   (paths of the installed headers)
Prints one line per include against the rules, and exits 1 if there is any.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The layer a source path (relative to the root) belongs to."""
    parts = path.split('/')
    if parts[0] == 'format':
        return 'format'
    if parts[0] == 'cli':
        return 'cli'
    if parts[0] == 'store':
        if len(parts) == 2:
            return 'engine'
        return {'git': 'git', 'kv': 'kv', 'capi': 'capi'}.get(parts[1])
    return None


ALLOWED = {
    'format': {'format'},
    'engine': {'format', 'engine'},
    'git': {'format', 'engine', 'git'},
    'kv': {'format', 'engine', 'kv'},
    'capi': {'format', 'engine', 'git', 'kv', 'capi'},
}


def main():
    root = sys.argv[1]
    installed = {os.path.relpath(os.path.realpath(p), os.path.realpath(root))
                 for p in sys.argv[2:]}
    if not installed:
        print('no installed headers given')
        return 1
    problems = []
    checked = 0
    for top in ('format', 'store', 'cli'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(('.h', '.cc', '.c')):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                layer = layer_of(path)
                if layer is None:
                    problems.append(f'{path}: in no layer (a new folder needs a rule here)')
                    continue
                with open(os.path.join(root, path), encoding='utf-8') as f:
                    text = f.read()
                checked += 1
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    line = text.count('\n', 0, m.start()) + 1
                    if '/' not in target:  # beside the includer (the C API's headers)
                        target = os.path.join(os.path.dirname(path), target)
                    if not os.path.exists(os.path.join(root, target)):
                        continue  # generated or a system header spelled with quotes
                    if layer == 'cli':
                        if layer_of(target) != 'cli' and target not in installed:
                            problems.append(f'{path}:{line}: the CLI includes "{target}", '
                                            'which the library does not install')
                    elif layer_of(target) not in ALLOWED[layer]:
                        problems.append(f'{path}:{line}: {layer} includes "{target}" '
                                        f'({layer_of(target)}), against the layering')
    for p in problems:
        print(p)
    print(f'{checked} files checked, {len(problems)} includes against the layering')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
