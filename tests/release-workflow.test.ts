/**
 * The release workflow publishes nothing unless the tests pass (issue 33, point 5): it parses as YAML, a job runs
 * the suite as CI does (.ci/run), and every job that publishes (the GitHub release, npm, the MCP Registry) needs that
 * job, directly or through others, with no condition that runs it after a failure. GitHub skips a job whose needed
 * job failed, unless its `if` says always(), failure() or cancelled().
 */
import { describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';

const WORKFLOW = path.resolve(import.meta.dir, '../.github/workflows/release.yml');
const PUBLISHES = [/\bnpm publish\b/, /mcp-publisher publish/, /action-gh-release/, /\bgh release\b/];

interface Step {
  uses?: string;
  run?: string;
  'continue-on-error'?: unknown;
}
interface Job {
  needs?: string | string[];
  if?: string;
  steps?: Step[];
  'continue-on-error'?: unknown;
}

const workflow = Bun.YAML.parse(fs.readFileSync(WORKFLOW, 'utf8')) as { on: any; jobs: Record<string, Job> };
const jobs = workflow.jobs;
const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : [job.needs].flat());
const stepText = (step: Step) => `${step.uses ?? ''}\n${step.run ?? ''}`;
const publishes = (job: Job) => (job.steps ?? []).some((step) => PUBLISHES.some((re) => re.test(stepText(step))));
const testJobs = Object.keys(jobs).filter((name) =>
  (jobs[name]!.steps ?? []).some((step) => /(^|\s|\/)\.ci\/run\b/.test(step.run ?? '')),
);

/** Every job a job waits for, directly or through the jobs it needs. */
function upstream(name: string, seen = new Set<string>()): Set<string> {
  for (const need of needsOf(jobs[name]!)) {
    if (!(need in jobs)) throw new Error(`job ${name} needs ${need}, which is not a job`);
    if (!seen.has(need)) {
      seen.add(need);
      upstream(need, seen);
    }
  }
  return seen;
}

describe('the release workflow', () => {
  it('runs on a version tag and has a job that runs the tests as CI does, which never counts a failure as done', () => {
    expect(workflow.on.push.tags).toStrictEqual(['v*']);
    expect(testJobs.length).toBe(1);
    const test = jobs[testJobs[0]!]!;
    expect(publishes(test)).toBe(false);
    expect(test['continue-on-error']).toBeUndefined();
    for (const step of test.steps ?? []) expect(step['continue-on-error']).toBeUndefined();
  });

  it('publishes only from jobs that need the test job, with no condition that runs them after it failed', () => {
    const publishers = Object.keys(jobs).filter((name) => publishes(jobs[name]!));
    // The GitHub release, npm and the MCP Registry all publish somewhere.
    expect(publishers.length).toBeGreaterThan(0);
    for (const name of publishers) {
      expect([...upstream(name)], `job ${name} publishes`).toContain(testJobs[0]!);
      for (const job of [name, ...upstream(name)])
        expect(jobs[job]!.if ?? '', `job ${job}'s if`).not.toMatch(/always\(\)|failure\(\)|cancelled\(\)/);
    }
  });

  it('attaches the MCP Bundles and server.json to the GitHub release', () => {
    const attach = Object.values(jobs)
      .flatMap((job) => job.steps ?? [])
      .find((step) => step.uses?.startsWith('softprops/action-gh-release')) as Step & { with: { files: string } };
    expect(attach.with.files.split('\n')).toEqual(
      expect.arrayContaining(['dist/release/*.mcpb', 'dist/release/server.json', 'dist/release/SHA256SUMS']),
    );
  });
});
