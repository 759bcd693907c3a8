/**
 * The archives' own consumers read what zipfs writes after agent-style changes
 * (issue 21, "Done means"): Java's class loader and JarFile read a jar given a
 * new folder, a new file and a patched manifest; pip installs a wheel whose
 * dist-info folder was renamed and whose RECORD was regenerated; python-docx
 * reads a docx whose document.xml was edited. Each part is skipped, saying
 * why, when its consumer is not installed (.ci/run installs them all).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { has, needs } from '../helpers/tools.ts';
import { REFERENCE_WHY, expectReferenceClean } from '../helpers/zip-compare.ts';

const root = path.resolve(import.meta.dir, '../..');
const venvPython = path.join(root, '.cache', 'py', 'bin', 'python');
const hasVenv = fs.existsSync(venvPython);

let box: ReturnType<typeof sandbox>;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

/** Runs a program, failing the test with its output when it fails. */
function run(command: string[], options: { cwd?: string; env?: Record<string, string> } = {}): string {
  const result = Bun.spawnSync(command, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    timeout: 120_000,
  });
  const output = result.stdout.toString();
  if (result.exitCode !== 0)
    throw new Error(`${command.join(' ')} exited ${result.exitCode}:\n${output}${result.stderr.toString()}`);
  return output;
}

/** A zipfs command that must succeed; its --json answer. */
function zipfs(args: string[]): any {
  const result = box.run([...args, '--json']);
  if (result.code !== 0)
    throw new Error(`zipfs ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
  return result.json;
}

const java = needs('javac', 'jar', 'java');
describe.skipIf(java.skip)(`a jar, run by java${java.why}${REFERENCE_WHY}`, () => {
  it('finds a folder made with mkdir, a file written into it, and a manifest attribute added with edit', () => {
    // A real jar: javac and jar, with one folder resource (data/) and the folder entries jar writes.
    const src = path.join(box.dir, 'src');
    fs.mkdirSync(path.join(src, 'res', 'data'), { recursive: true });
    fs.writeFileSync(path.join(src, 'res', 'data', 'a.txt'), 'original\n');
    fs.writeFileSync(
      path.join(src, 'Main.java'),
      `import java.net.URL;
import java.util.jar.JarFile;
public class Main {
  public static void main(String[] args) throws Exception {
    Main self = new Main();
    System.out.println("data/=" + (self.getClass().getResource("/data/") != null));
    System.out.println("extra/=" + (self.getClass().getResource("/extra/") != null));
    URL hello = self.getClass().getResource("/extra/hello.txt");
    System.out.println("hello=" + (hello == null ? "null" : new String(hello.openStream().readAllBytes(), "UTF-8")));
    String jarPath = Main.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    try (JarFile jar = new JarFile(jarPath, true)) {
      System.out.println("main-class=" + jar.getManifest().getMainAttributes().getValue("Main-Class"));
      System.out.println("x-zipfs=" + jar.getManifest().getMainAttributes().getValue("X-Zipfs"));
    }
  }
}
`,
    );
    run(['javac', '-d', path.join(src, 'classes'), path.join(src, 'Main.java')]);
    const jar = path.join(box.dir, 'app.jar');
    run(['jar', 'cfe', jar, 'Main', '-C', path.join(src, 'classes'), '.', '-C', path.join(src, 'res'), '.']);
    // Before: the folder and file are absent, as getResource says.
    expect(run(['java', '-cp', jar, 'Main'])).toBe(
      'data/=true\nextra/=false\nhello=null\nmain-class=Main\nx-zipfs=null\n',
    );

    zipfs(['open', jar]);
    expect(zipfs(['mkdir', 'extra'])).toStrictEqual({ created: true, path: 'extra' });
    zipfs(['write', 'extra/hello.txt', 'hi']);
    // jar writes the manifest with CRLF line ends; the new line follows them.
    const manifest = zipfs(['read', 'META-INF/MANIFEST.MF']).content as string;
    expect(manifest).toContain('Main-Class: Main\r\n');
    zipfs([
      'edit',
      'META-INF/MANIFEST.MF',
      '--old',
      'Main-Class: Main\r\n',
      '--new',
      'Main-Class: Main\r\nX-Zipfs: patched\r\n',
    ]);
    expect(zipfs(['status'])).toMatchObject({
      modified: ['META-INF/MANIFEST.MF'],
      added: ['extra/', 'extra/hello.txt'],
      deleted: [],
    });
    expect(zipfs(['sync'])).toMatchObject({ synced: true, files_modified: 1, files_added: 2, files_deleted: 0 });
    zipfs(['close']);

    // getResource of a folder is non-null only when the jar holds the folder's entry.
    expect(run(['java', '-cp', jar, 'Main'])).toBe(
      'data/=true\nextra/=true\nhello=hi\nmain-class=Main\nx-zipfs=patched\n',
    );
    const listing = run(['jar', 'tf', jar]).split('\n').filter(Boolean);
    expect(listing.slice(-2)).toStrictEqual(['extra/', 'extra/hello.txt']);
    expect(listing).toContain('META-INF/MANIFEST.MF');
    expectReferenceClean(jar);
  });
});

/** A wheel RECORD line's hash: sha256, urlsafe base64 without padding (PEP 376 / 427). */
const recordHash = (data: string | Uint8Array) => `sha256=${createHash('sha256').update(data).digest('base64url')}`;
const record = (files: Record<string, string>, recordPath: string) =>
  Object.entries(files)
    .map(([name, data]) => `${name},${recordHash(data)},${Buffer.byteLength(data)}\n`)
    .join('') + `${recordPath},,\n`;

const pip: string[] | undefined =
  hasVenv && Bun.spawnSync([venvPython, '-m', 'pip', '--version']).exitCode === 0
    ? [venvPython, '-m', 'pip']
    : has('python3') && Bun.spawnSync(['python3', '-m', 'pip', '--version']).exitCode === 0
      ? ['python3', '-m', 'pip']
      : undefined;
const pipPython = pip?.[0] ?? 'python3';
const whyNoPip = pip
  ? REFERENCE_WHY
  : ' (skipped: needs pip: python3 -m venv .cache/py, as .ci/run does, or apt-get install python3-pip)';
describe.skipIf(!pip)(`a wheel, installed by pip${whyNoPip}`, () => {
  it('installs after its dist-info folder is renamed with mv and METADATA and RECORD are rewritten', () => {
    const init = '__version__ = "1.0"\n';
    const metadata = (version: string) =>
      `Metadata-Version: 2.1\nName: pkg\nVersion: ${version}\nSummary: a wheel zipfs changed\n`;
    const wheelFile = 'Wheel-Version: 1.0\nGenerator: zipfs-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n';
    const old = 'pkg-1.0.dist-info';
    const files10 = { 'pkg/__init__.py': init, [`${old}/METADATA`]: metadata('1.0'), [`${old}/WHEEL`]: wheelFile };
    const spec = JSON.stringify({ ...files10, [`${old}/RECORD`]: record(files10, `${old}/RECORD`) });
    const whl10 = path.join(box.dir, 'pkg-1.0-py3-none-any.whl');
    // Python's zipfile writes it, as wheel builders do: no folder entries, RECORD last.
    run([
      pipPython,
      '-c',
      'import sys, json, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:\n    for ' +
        'name, data in json.loads(sys.argv[2]).items(): z.writestr(name, data)',
      whl10,
      spec,
    ]);

    zipfs(['open', whl10]);
    expect(zipfs(['mv', old, 'pkg-1.1.dist-info'])).toMatchObject({ moved: true });
    const moved = zipfs(['status']);
    expect(moved.renamed).toStrictEqual([
      { from: `${old}/METADATA`, to: 'pkg-1.1.dist-info/METADATA' },
      { from: `${old}/RECORD`, to: 'pkg-1.1.dist-info/RECORD' },
      { from: `${old}/WHEEL`, to: 'pkg-1.1.dist-info/WHEEL' },
    ]);
    const neu = 'pkg-1.1.dist-info';
    zipfs(['write', `${neu}/METADATA`, metadata('1.1')]);
    const files11 = { 'pkg/__init__.py': init, [`${neu}/METADATA`]: metadata('1.1'), [`${neu}/WHEEL`]: wheelFile };
    zipfs(['write', `${neu}/RECORD`, record(files11, `${neu}/RECORD`)]);
    // Still renames after the rewrites (changed ones say so), so sync writes each where it stood.
    expect(zipfs(['status'])).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      renamed: [
        { from: `${old}/METADATA`, to: `${neu}/METADATA`, modified: true },
        { from: `${old}/RECORD`, to: `${neu}/RECORD`, modified: true },
        { from: `${old}/WHEEL`, to: `${neu}/WHEEL` },
      ],
      unchanged_count: 1,
    });
    expect(zipfs(['sync'])).toMatchObject({ synced: true, files_renamed: 3, files_added: 0, files_deleted: 0 });
    zipfs(['close']);

    // The entries as a wheel installer reads them: RECORD still last, every RECORD line true.
    const check = run([
      pipPython,
      '-c',
      `import sys, json, zipfile, hashlib, base64, csv, io
with zipfile.ZipFile(sys.argv[1]) as z:
    names = z.namelist()
    rec = [n for n in names if n.endswith('.dist-info/RECORD')][0]
    bad = []
    for row in csv.reader(io.StringIO(z.read(rec).decode())):
        if row[1]:
            data = z.read(row[0])
            digest = 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
            if digest != row[1] or int(row[2]) != len(data): bad.append(row[0])
    print(json.dumps({'names': names, 'bad': bad, 'test': z.testzip()}))`,
      whl10,
    ]);
    const seen = JSON.parse(check);
    expect(seen).toStrictEqual({
      names: ['pkg/__init__.py', `${neu}/METADATA`, `${neu}/WHEEL`, `${neu}/RECORD`],
      bad: [],
      test: null,
    });

    // The wheel's file name carries the version: give the synced archive its new name, then install it.
    const whl11 = path.join(box.dir, 'pkg-1.1-py3-none-any.whl');
    fs.renameSync(whl10, whl11);
    const target = path.join(box.dir, 'target');
    run([
      ...pip!,
      'install',
      '--no-index',
      '--no-deps',
      '--no-compile',
      '--disable-pip-version-check',
      '--target',
      target,
      whl11,
    ]);
    expect(fs.existsSync(path.join(target, neu, 'RECORD'))).toBe(true);
    expect(fs.existsSync(path.join(target, old))).toBe(false);
    const version = run([
      pipPython,
      '-c',
      'import sys; sys.path.insert(0, sys.argv[1]); import importlib.metadata as m, pkg; print(m.version("pkg"), ' +
        'pkg.__version__)',
      target,
    ]);
    expect(version.trim()).toBe('1.1 1.0');
    expectReferenceClean(whl11);
  });
});

/**
 * python-docx, installed into .cache/py when it is missing (as .ci/run does);
 * done while the file loads, since whether to skip must be known then.
 */
function ensureDocx(): string {
  if (!hasVenv)
    return (
      ' (skipped: needs python-docx in .cache/py: python3 -m venv .cache/py && .cache/py/bin/pip install ' +
      'python-docx; .ci/run does)'
    );
  if (Bun.spawnSync([venvPython, '-c', 'import docx']).exitCode === 0) return '';
  const install = Bun.spawnSync(
    [
      venvPython,
      '-m',
      'pip',
      'install',
      '-q',
      '--retries',
      '0',
      '--timeout',
      '20',
      '--disable-pip-version-check',
      'python-docx',
    ],
    { timeout: 120_000 },
  );
  if (install.exitCode === 0 && Bun.spawnSync([venvPython, '-c', 'import docx']).exitCode === 0) return '';
  const reason = install.stderr.toString().trim().split('\n').at(-1) ?? '';
  return ` (skipped: python-docx could not be installed into .cache/py: ${reason.slice(0, 160)}; .ci/run installs it)`;
}
const docxWhy = ensureDocx();
describe.skipIf(docxWhy !== '')(`a docx, read by python-docx${docxWhy || REFERENCE_WHY}`, () => {
  it('reads the paragraph edited in word/document.xml', () => {
    const docx = path.join(box.dir, 'report.docx');
    run([
      venvPython,
      '-c',
      'import sys, docx\nd = docx.Document()\nd.add_paragraph("Quarterly report draft")\nd.save(sys.argv[1])',
      docx,
    ]);

    zipfs(['open', docx]);
    zipfs(['edit', 'word/document.xml', '--old', 'draft', '--new', 'final']);
    expect(zipfs(['status'])).toMatchObject({ modified: ['word/document.xml'], added: [], deleted: [] });
    expect(zipfs(['sync'])).toMatchObject({ synced: true, files_modified: 1 });
    zipfs(['close']);

    const paragraphs = run([
      venvPython,
      '-c',
      'import sys, json, docx\nprint(json.dumps([p.text for p in docx.Document(sys.argv[1]).paragraphs]))',
      docx,
    ]);
    expect(JSON.parse(paragraphs)).toStrictEqual(['Quarterly report final']);
    expectReferenceClean(docx);
  });
});
