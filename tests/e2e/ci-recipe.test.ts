/**
 * zipfs in CI (issue 24, point 6): the README's "In CI" recipe, taken from the
 * README itself and run with bash, so it cannot go stale; the installer it
 * uses (scripts/install-release.sh), which refuses an archive that does not
 * match SHA256SUMS; and the GitHub Action's step, run as a runner would run it.
 * All against a release built from this checkout (no network: the release URL
 * is a file:// URL of dist/release).
 */
import { beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import pkg from '../../package.json' with { type: 'json' };
import { needs } from '../helpers/tools.ts';

const root = path.resolve(import.meta.dir, '../..');
const release = path.join(root, 'dist', 'release');
const hostTarget = process.platform === 'linux' && process.arch === 'x64' ? 'linux-x64' : undefined;
const borrowed = needs('npm', 'tar', 'curl', 'sha256sum');
const installer = path.join(root, 'scripts', 'install-release.sh');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The first ```sh block under the "### In CI" heading. */
function ciRecipe(): string {
  const section = readme.slice(readme.indexOf('\n### In CI\n'));
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(section);
  if (!block) throw new Error('README.md has no ```sh block under ### In CI');
  return block[1]!;
}

/** An environment without this checkout's zipfs on PATH: what the recipe uses is what it installed. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: os.tmpdir(), ...extra };
}

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-ci-'));

describe('the release, its version and the docs agree', () => {
  it("gives the installer, the README recipe and the action example the package's version", () => {
    expect(fs.readFileSync(installer, 'utf8')).toContain(`version="\${ZIPFS_VERSION:-${pkg.version}}"`);
    expect(ciRecipe()).toContain(`: "\${ZIPFS_VERSION:=${pkg.version}}"`);
    expect(readme).toContain(`- uses: zipfs/zipfs/.github/actions/setup-zipfs@v${pkg.version}`);
  });
});

describe.skipIf(borrowed.skip || !hostTarget)(
  `zipfs in CI${hostTarget ? borrowed.why : ' (skipped: the test installs the linux-x64 release)'}`,
  () => {
    beforeAll(() => {
      const built = Bun.spawnSync([process.execPath, 'scripts/release.ts', '--target', hostTarget!], {
        cwd: root,
        stdout: 'ignore',
        stderr: 'pipe',
      });
      if (built.exitCode !== 0) throw new Error(`scripts/release.ts failed: ${built.stderr}`);
    }, 180_000);

    it('runs the README\'s "In CI" recipe as written: install, a job\'s own data folder, exec, gates, parallel ' +
      'jobs', () => {
      const dir = scratch();
      try {
        const properties = 'management.server.port=8080\nserver.port=8080\n';
        fs.writeFileSync(
          path.join(dir, 'app.jar'),
          zipSync({
            'META-INF/MANIFEST.MF': strToU8('Manifest-Version: 1.0\n'),
            'BOOT-INF/classes/application.properties': strToU8(properties),
          }),
        );
        fs.writeFileSync(path.join(dir, 'recipe.sh'), ciRecipe());
        const ran = Bun.spawnSync(['bash', 'recipe.sh'], {
          cwd: dir,
          env: cleanEnv({ ZIPFS_RELEASE_URL: `file://${release}` }),
          stderr: 'pipe',
          stdout: 'pipe',
          timeout: 120_000,
        });
        expect(ran.stderr.toString()).toBe('');
        expect(ran.exitCode).toBe(0);
        expect(ran.stdout.toString()).toBe(''); // grep -q, as grep's: the gate is its exit status, nothing printed
        const entries = unzipSync(new Uint8Array(fs.readFileSync(path.join(dir, 'app.jar'))));
        expect(Object.keys(entries).sort()).toStrictEqual([
          'BOOT-INF/classes/application.properties',
          'META-INF/MANIFEST.MF',
          'part-a.txt',
          'part-b.txt',
          'part-c.txt',
        ]);
        expect(new TextDecoder().decode(entries['BOOT-INF/classes/application.properties'])).toBe(
          'management.server.port=8080\nserver.port=9090\n',
        );
        expect(
          fs
            .readFileSync(path.join(dir, 'zipfs-bin', 'zipfs'))
            .equals(fs.readFileSync(path.join(root, 'dist', `zipfs-${hostTarget}`))),
        ).toBe(true);

        // The same recipe fails, with the gate's exit code, when the gate does not hold.
        fs.writeFileSync(
          path.join(dir, 'app.jar'),
          zipSync({ 'BOOT-INF/classes/application.properties': strToU8('server.port=8080\n') }),
        );
        fs.writeFileSync(
          path.join(dir, 'recipe.sh'),
          ciRecipe().replace("--new 'server.port=9090'", "--new 'server.port=9191'"),
        );
        const gated = Bun.spawnSync(['bash', 'recipe.sh'], {
          cwd: dir,
          env: cleanEnv({ ZIPFS_RELEASE_URL: `file://${release}` }),
          stderr: 'pipe',
          timeout: 120_000,
        });
        expect(gated.exitCode).toBe(1);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);

    it('installs only an archive that matches SHA256SUMS', () => {
      const dir = scratch();
      try {
        const install = (url: string, into: string) =>
          Bun.spawnSync(['sh', installer], {
            cwd: dir,
            env: cleanEnv({ ZIPFS_RELEASE_URL: url, ZIPFS_INSTALL_DIR: into }),
            stderr: 'pipe',
          });
        const good = install(release, 'bin');
        expect(good.exitCode).toBe(0);
        expect(good.stdout.toString()).toBe(`${path.join(fs.realpathSync(dir), 'bin', 'zipfs')}\n`);
        expect(
          Bun.spawnSync([path.join(dir, 'bin', 'zipfs'), '--version'])
            .stdout.toString()
            .trim(),
        ).toBe(pkg.version);

        // A release whose archive was changed after SHA256SUMS was made: refused, nothing installed.
        const tampered = path.join(dir, 'tampered');
        fs.cpSync(release, tampered, { recursive: true });
        const archive = path.join(tampered, `zipfs-${pkg.version}-${hostTarget}.tar.gz`);
        const bytes = fs.readFileSync(archive);
        bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
        fs.writeFileSync(archive, bytes);
        const bad = install(`file://${tampered}`, 'bad-bin');
        expect(bad.exitCode).toBe(1);
        expect(bad.stderr.toString()).toContain(
          `install-release.sh: zipfs-${pkg.version}-${hostTarget}.tar.gz does not match its checksum`,
        );
        expect(fs.existsSync(path.join(dir, 'bad-bin', 'zipfs'))).toBe(false);

        fs.writeFileSync(path.join(tampered, 'SHA256SUMS'), 'abc  other.tar.gz\n');
        expect(install(tampered, 'bad-bin').stderr.toString()).toContain(
          `does not list zipfs-${pkg.version}-${hostTarget}.tar.gz`,
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("runs the GitHub Action's step as a runner would: the verified binary on PATH and as the path output", () => {
      const dir = scratch();
      try {
        const actionDir = path.join(root, '.github', 'actions', 'setup-zipfs');
        const action = Bun.YAML.parse(fs.readFileSync(path.join(actionDir, 'action.yml'), 'utf8')) as any;
        expect(action.runs.using).toBe('composite');
        const [step] = action.runs.steps;
        // The expressions a runner fills in: the inputs (release-url given, version left to its default) and
        // runner.temp.
        const values: Record<string, string> = {
          'inputs.version': action.inputs.version.default,
          'inputs.release-url': release,
          'runner.temp': dir,
        };
        const fill = (text: string) =>
          text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => values[name] ?? `<unknown ${name}>`);
        const env = Object.fromEntries(Object.entries<string>(step.env).map(([key, value]) => [key, fill(value)]));
        const files = { GITHUB_OUTPUT: path.join(dir, 'output'), GITHUB_PATH: path.join(dir, 'path') };
        for (const file of Object.values(files)) fs.writeFileSync(file, '');
        const ran = Bun.spawnSync([step.shell, '-e', '-c', fill(step.run)], {
          cwd: dir,
          env: cleanEnv({ ...env, ...files, GITHUB_ACTION_PATH: actionDir }),
          stderr: 'pipe',
        });
        expect(ran.stderr.toString()).toBe('');
        expect(ran.exitCode).toBe(0);
        expect(ran.stdout.toString()).toBe(`${pkg.version}\n`);
        const installed = path.join(dir, 'zipfs-bin', 'zipfs');
        expect(fs.readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe(`path=${installed}\n`);
        expect(fs.readFileSync(files.GITHUB_PATH, 'utf8')).toBe(`${path.dirname(installed)}\n`);
        expect(action.outputs.path.value).toBe('${{ steps.install.outputs.path }}');
        expect(step.id).toBe('install');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
