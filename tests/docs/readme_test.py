#!/usr/bin/env python3
"""The README's examples, run as a reader runs them.

Every fenced block of the README is one of:
  ```console     commands ("$ ..." lines, continued by lines ending in "\\") each followed by
                 the output it prints (stdout and stderr); a line "..." stands for any lines.
                 Blocks run in order in one shell, in a fresh folder, with the installed reftab
                 and a reftable-capable git first on PATH; a block starts where the last ended.
  ```c FILE      a complete program, written to FILE in the shell's current folder, for a
  ```cpp FILE    later console block to build (with pkg-config) and run.
  ```sh          set-up commands (the README's first block): shown, not run here.
  ```text, json  anything else a reader reads but does not run (formats, tables).
A block of another kind fails the test, so that nothing in the README goes unchecked.

Usage:
  readme_test.py run README BUILD_DIR    install BUILD_DIR into a staging folder and run the
                                         examples against it (exit 77, skipped, without a git
                                         that has reftable, unless REFTAB_REQUIRE_GIT is set)
  readme_test.py extract README OUT_DIR  write the program blocks into OUT_DIR (the build
                                         compiles them in-tree too, under the sanitizers)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^```(\S*)\s*(\S*)\s*$')
RUN_KINDS = {'console', 'c', 'cpp'}
SHOWN_KINDS = {'sh', 'text', 'json'}


def blocks(readme):
    """(kind, file name, text, line number) for each fenced block, in order."""
    out = []
    kind = None
    with open(readme, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if kind is None:
                m = FENCE.match(line)
                if m:
                    kind, name, start, text = m.group(1), m.group(2), n, []
            elif line.startswith('```'):
                out.append((kind, name, ''.join(text), start))
                kind = None
            else:
                text.append(line)
    if kind is not None:
        raise SystemExit(f'{readme}:{start}: block never closed')
    return out


def parse_console(text):
    """[(command, expected output lines)] from a console block."""
    steps = []
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    i = 0
    while i < len(lines):
        if not lines[i].startswith('$ '):
            raise ValueError(f'expected a "$ " command, got {lines[i]!r}')
        cmd = lines[i][2:]
        while cmd.endswith('\\') and i + 1 < len(lines):
            i += 1
            cmd += '\n' + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith('$ '):
            expected.append(lines[i])
            i += 1
        steps.append((cmd, expected))
    return steps


def matches(expected, actual):
    """Whether the output lines match, "..." standing for any number of lines."""
    if not expected:
        return not actual
    if expected[0] == '...':
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def check_kinds(all_blocks, readme):
    bad = [f'{readme}:{n}: block of kind {k!r} (use console, c FILE, cpp FILE, sh, text or json)'
           for k, name, _, n in all_blocks
           if k not in RUN_KINDS | SHOWN_KINDS or (k in ('c', 'cpp') and not name)]
    return bad


def extract(readme, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for kind, name, text, _ in blocks(readme):
        if kind in ('c', 'cpp'):
            with open(os.path.join(out_dir, name), 'w', encoding='utf-8') as f:
                f.write(text)
    return 0


def find_git():
    """A git that has reftable (2.45 or later): REFTAB_GIT, else git on PATH."""
    for git in (os.environ.get('REFTAB_GIT'), shutil.which('git')):
        if not git:
            continue
        try:
            v = subprocess.run([git, '--version'], capture_output=True, text=True).stdout
        except OSError:
            continue
        m = re.search(r'(\d+)\.(\d+)', v)
        if m and (int(m.group(1)), int(m.group(2))) >= (2, 45):
            return git
    return None


def stage_install(build_dir, stage):
    """meson install into `stage`; returns (bin dir, lib dir, pkg-config dir)."""
    subprocess.run(['meson', 'install', '-C', build_dir, '--no-rebuild', '--quiet',
                    '--destdir', stage], check=True, stdout=subprocess.DEVNULL)
    pc = next(os.path.join(d, f) for d, _, fs in os.walk(stage) for f in fs if f == 'reftab.pc')
    with open(pc, encoding='utf-8') as f:
        text = f.read()
    prefix = re.search(r'^prefix=(.*)$', text, re.M).group(1)
    with open(pc, 'w', encoding='utf-8') as f:
        f.write(re.sub(r'^prefix=.*$', 'prefix=' + stage + prefix, text, flags=re.M))
    lib = next(d for d, _, fs in os.walk(stage) if 'libreftab.so' in fs)
    return os.path.join(stage + prefix, 'bin'), lib, os.path.dirname(pc)


def run(readme, build_dir):
    all_blocks = blocks(readme)
    problems = check_kinds(all_blocks, readme)
    git = find_git()
    if not git:
        why = 'no git with reftable (REFTAB_GIT, or git >= 2.45 on PATH)'
        if os.environ.get('REFTAB_REQUIRE_GIT'):
            print(f'FAIL: {why}, and REFTAB_REQUIRE_GIT is set')
            return 1
        print(f'SKIP: {why}')
        return 77
    work = tempfile.mkdtemp(prefix='reftab-readme-')
    try:
        bin_dir, lib_dir, pc_dir = stage_install(build_dir, os.path.join(work, 'stage'))
        tools = os.path.join(work, 'tools')
        os.makedirs(tools)
        os.symlink(git, os.path.join(tools, 'git'))
        home = os.path.join(work, 'home')
        os.makedirs(home)
        env = {
            'PATH': f'{tools}:{bin_dir}:/usr/bin:/bin',
            'HOME': home, 'LANG': 'C', 'LC_ALL': 'C', 'TZ': 'UTC', 'TERM': 'dumb',
            'PKG_CONFIG_PATH': pc_dir, 'LD_LIBRARY_PATH': lib_dir,
            'GIT_CONFIG_NOSYSTEM': '1', 'GIT_AUTHOR_NAME': 'A U Thor',
            'GIT_AUTHOR_EMAIL': 'author@example.com', 'GIT_COMMITTER_NAME': 'A U Thor',
            'GIT_COMMITTER_EMAIL': 'author@example.com',
            'GIT_AUTHOR_DATE': '1700000000 +0100', 'GIT_COMMITTER_DATE': '1700000000 +0100',
        }
        cwd = os.path.join(work, 'tour')
        os.makedirs(cwd)
        ran = 0
        for kind, name, text, line in all_blocks:
            if kind in ('c', 'cpp') and name:
                with open(os.path.join(cwd, name), 'w', encoding='utf-8') as f:
                    f.write(text)
                continue
            if kind != 'console':
                continue
            try:
                steps = parse_console(text)
            except ValueError as e:
                problems.append(f'{readme}:{line}: {e}')
                continue
            # One shell for the block, each command's output between markers; the folder it
            # ends in is where the next block starts.
            script = ['set +e']
            for k, (cmd, _) in enumerate(steps):
                script.append(f"printf '\\n@@reftab-readme {k}\\n'")
                script.append(f'{{\n{cmd}\n}} 2>&1')
            script.append("printf '\\n@@reftab-readme end\\n'; pwd")
            r = subprocess.run(['bash', '-c', '\n'.join(script)], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=300)
            parts = re.split(r'\n@@reftab-readme (\S+)\n', '\n' + r.stdout)
            outputs = dict(zip(parts[1::2], parts[2::2]))
            for k, (cmd, expected) in enumerate(steps):
                actual = outputs.get(str(k), '').rstrip('\n')
                actual = actual.split('\n') if actual else []
                ran += 1
                if not matches(expected, actual):
                    problems.append(f'{readme}:{line}: `{cmd}` printed:\n' +
                                    '\n'.join('  | ' + a for a in actual) + '\nexpected:\n' +
                                    '\n'.join('  | ' + e for e in expected))
            cwd = outputs.get('end', '').strip() or cwd
        for p in problems:
            print(p)
        print(f'{ran} commands run, {len(problems)} problems')
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'run':
        return run(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 4 and sys.argv[1] == 'extract':
        return extract(sys.argv[2], sys.argv[3])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
