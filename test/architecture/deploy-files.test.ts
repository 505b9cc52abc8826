/** deploy/Containerfile and deploy/sandpiper.service: the properties an operator relies on, read from the files (no container engine here). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { configSchema } from '../../src/config/config-schema.js';
import { repoRoot } from '../helpers/run-bin.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** Containerfile instructions, with `\` continuations joined and comments dropped. */
function parseContainerfile(text: string): Instruction[] {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

/** Instructions grouped by stage (each FROM starts one). */
function stages(instructions: Instruction[]): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

function parseUnit(text: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = line.match(/^\[(.+)\]$/);
    if (header) {
      section = header[1] as string;
      continue;
    }
    const [key, ...value] = line.split('=');
    const name = `${section}.${key?.trim()}`;
    keys.set(name, [...(keys.get(name) ?? []), value.join('=').trim()]);
  }
  return keys;
}

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  files: string[];
};
const defaultShutdownS = configSchema.parse({}).gateway.shutdown_timeout_s;

describe('deploy/Containerfile', () => {
  const all = stages(parseContainerfile(readFileSync(path.join(repoRoot, 'deploy', 'Containerfile'), 'utf8')));
  const final = all.at(-1) ?? [];
  const last = (keyword: string): Instruction | undefined =>
    final.filter((instruction) => instruction.keyword === keyword).at(-1);

  it('is multi-stage: the final stage copies the build from an earlier one and has no compilers left', () => {
    assert.ok(all.length >= 2, 'at least two FROM stages');
    const earlier = all
      .slice(0, -1)
      .map((stage) => stage[0]?.args.match(/\bAS\s+(\S+)/i)?.[1])
      .filter(Boolean);
    const copies = final.filter(
      (instruction) => instruction.keyword === 'COPY' && /--from=(\S+)/.test(instruction.args),
    );
    assert.ok(
      copies.some((copy) => earlier.includes(copy.args.match(/--from=(\S+)/)?.[1])),
      'COPY --from=<earlier stage>',
    );
    const installs = final.filter(
      (instruction) => instruction.keyword === 'RUN' && /apt-get install/.test(instruction.args),
    );
    for (const install of installs)
      assert.match(install.args, /apt-get purge -y python3 make g\+\+/, 'build tools are removed again');
  });

  it('runs as a non-root user', () => {
    const user = last('USER')?.args;
    assert.ok(user !== undefined, 'the final stage sets USER');
    assert.ok(!['root', '0', '0:0'].includes(user), `USER ${user}`);
    const created = final.some(
      (instruction) => instruction.keyword === 'RUN' && new RegExp(`useradd [^&]*\\b${user}\\b`).test(instruction.args),
    );
    assert.ok(created, `the user ${user} is created in the final stage`);
  });

  it('has node as the entry process, in exec form, running the installed bin', () => {
    const entrypoint = JSON.parse(last('ENTRYPOINT')?.args ?? 'null') as unknown;
    assert.ok(Array.isArray(entrypoint), 'ENTRYPOINT in exec (JSON array) form: no shell as PID 1');
    assert.equal(entrypoint[0], 'node');
    const binFile = packageJson.bin['sandpiper'];
    assert.equal(entrypoint[1], `/usr/local/lib/node_modules/${packageJson.name}/${binFile}`);
    const cmd = JSON.parse(last('CMD')?.args ?? '[]') as string[];
    assert.deepEqual(cmd, ['start']);
    assert.equal(last('STOPSIGNAL')?.args, 'SIGTERM');
    for (const instruction of [last('ENTRYPOINT'), last('CMD')])
      assert.doesNotMatch(instruction?.args ?? '', /\bnp[mx]\b/);
  });

  it('keeps the data in a volume at the data directory, which the packed package can reach', () => {
    assert.match(last('VOLUME')?.args ?? '', /\/var\/lib\/sandpiper/);
    const env = final
      .filter((instruction) => instruction.keyword === 'ENV')
      .map((instruction) => instruction.args)
      .join(' ');
    assert.match(env, /SANDPIPER_DATA_DIR=\/var\/lib\/sandpiper/);
    assert.match(env, /SANDPIPER_HTTP_HOST=0\.0\.0\.0/);
    assert.ok(
      packageJson.files.includes('dist/') && packageJson.files.includes('tools/'),
      'the package ships the build and tools/',
    );
    assert.ok(packageJson.files.includes('console/'), 'the package ships the console (ADR 0047)');
  });
});

describe('bubblewrap in the container (issue #32)', () => {
  const final =
    stages(parseContainerfile(readFileSync(path.join(repoRoot, 'deploy', 'Containerfile'), 'utf8'))).at(-1) ?? [];
  const profile = JSON.parse(readFileSync(path.join(repoRoot, 'deploy', 'seccomp-bubblewrap.json'), 'utf8')) as {
    defaultAction: string;
    syscalls: { names: string[]; action: string; errnoRet?: number }[];
  };
  const refused = profile.syscalls.filter((rule) => rule.action === 'SCMP_ACT_ERRNO').flatMap((rule) => rule.names);

  it('the image installs bubblewrap in the final stage and keeps it', () => {
    const install = final.find(
      (instruction) => instruction.keyword === 'RUN' && /apt-get install[^&]*\bbubblewrap\b/.test(instruction.args),
    );
    assert.ok(install, 'apt-get install … bubblewrap in the final stage');
    assert.doesNotMatch(install.args, /apt-get purge[^&]*\bbubblewrap\b/, 'not purged with the build tools');
  });

  it('the seccomp profile is valid, lets bubblewrap build its namespaces and refuses the dangerous calls', () => {
    assert.ok(['SCMP_ACT_ALLOW', 'SCMP_ACT_ERRNO'].includes(profile.defaultAction));
    for (const rule of profile.syscalls) {
      assert.ok(
        Array.isArray(rule.names) &&
          rule.names.length > 0 &&
          rule.names.every((name) => /^[a-z_][a-z0-9_]*$/.test(name)),
        JSON.stringify(rule.names),
      );
      assert.match(rule.action, /^SCMP_ACT_(ALLOW|ERRNO|KILL_PROCESS|LOG)$/);
    }
    assert.equal(new Set(refused).size, refused.length, 'no syscall listed twice');
    for (const needed of [
      'clone',
      'clone3',
      'unshare',
      'mount',
      'umount2',
      'pivot_root',
      'setns',
      'prctl',
      'setrlimit',
      'prlimit64',
    ]) {
      assert.ok(!refused.includes(needed), `${needed} is what bubblewrap and prlimit need`);
    }
    for (const dangerous of [
      'init_module',
      'finit_module',
      'kexec_load',
      'bpf',
      'keyctl',
      'open_by_handle_at',
      'io_uring_setup',
      'reboot',
    ]) {
      assert.ok(refused.includes(dangerous), `${dangerous} is refused`);
    }
  });

  it('the README, the Containerfile and the start-up fix name the same options', async () => {
    const { SANDBOX_FIX } = await import('../../src/agent/sandbox/detect-sandbox.js');
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const containerfile = readFileSync(path.join(repoRoot, 'deploy', 'Containerfile'), 'utf8');
    for (const option of [
      'seccomp=deploy/seccomp-bubblewrap.json',
      'apparmor=unconfined',
      'systempaths=unconfined',
      'unmask=/proc/*',
    ]) {
      assert.ok(SANDBOX_FIX.includes(option) && readme.includes(option) && containerfile.includes(option), option);
    }
  });
});

describe('deploy/sandpiper.service', () => {
  const unit = parseUnit(readFileSync(path.join(repoRoot, 'deploy', 'sandpiper.service'), 'utf8'));
  const one = (key: string): string => {
    const values = unit.get(key) ?? [];
    assert.equal(values.length, 1, `${key} is set once`);
    return values[0] as string;
  };

  it('starts the bin directly (no npm or npx wrapper) as a dedicated user', () => {
    assert.match(one('Service.ExecStart'), /\bsandpiper start --config \S+/);
    assert.doesNotMatch(one('Service.ExecStart'), /\bnp[mx]\b/);
    assert.ok(!['root', '0', ''].includes(one('Service.User')));
    assert.equal(one('Service.StateDirectory'), 'sandpiper');
  });

  it("stops with SIGTERM and waits longer than the gateway's own shutdown bound", () => {
    assert.equal(one('Service.KillSignal'), 'SIGTERM');
    assert.ok(
      Number(one('Service.TimeoutStopSec')) > defaultShutdownS,
      'TimeoutStopSec > gateway.shutdown_timeout_s default',
    );
    assert.equal(one('Install.WantedBy'), 'multi-user.target');
  });
});

describe('deploy/sandpiper@.service (several instances on one host, docs/scale-out.md)', () => {
  const unit = parseUnit(readFileSync(path.join(repoRoot, 'deploy', 'sandpiper@.service'), 'utf8'));
  const plain = parseUnit(readFileSync(path.join(repoRoot, 'deploy', 'sandpiper.service'), 'utf8'));
  const one = (key: string): string => {
    const values = unit.get(key) ?? [];
    assert.equal(values.length, 1, `${key} is set once`);
    return values[0] as string;
  };

  it('gives each instance its own config and its own state folder, which is the only writable path', () => {
    assert.match(one('Service.ExecStart'), /\bsandpiper start --config \/etc\/sandpiper\/%i\.toml$/);
    assert.doesNotMatch(one('Service.ExecStart'), /\bnp[mx]\b/);
    assert.equal(one('Service.StateDirectory'), 'sandpiper/%i');
    assert.equal(one('Service.WorkingDirectory'), '/var/lib/sandpiper/%i');
    assert.equal(one('Service.ReadWritePaths'), '/var/lib/sandpiper/%i');
  });

  it('stops and is hardened like the single-instance unit', () => {
    for (const key of [
      'Service.User',
      'Service.KillSignal',
      'Service.KillMode',
      'Service.TimeoutStopSec',
      'Service.NoNewPrivileges',
      'Service.ProtectSystem',
      'Install.WantedBy',
    ]) {
      assert.deepEqual(unit.get(key), plain.get(key), key);
    }
  });
});
