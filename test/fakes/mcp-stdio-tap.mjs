// Test-only stdio proxy: runs an MCP server as a child and logs every line, "> " client→server, "< " server→client.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [logFile, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
appendFileSync(logFile, `#child ${child.pid}\n`);

function tap(prefix) {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      appendFileSync(logFile, `${prefix}${pending.slice(0, newline)}\n`);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  };
}

const logIn = tap('> ');
const logOut = tap('< ');
process.stdin.on('data', (chunk) => {
  logIn(chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (chunk) => {
  logOut(chunk);
  process.stdout.write(chunk);
});
child.on('exit', (code) => process.exit(code ?? 0));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    child.kill('SIGTERM');
    process.exit(0);
  });
}
