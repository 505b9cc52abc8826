/**
 * The relay inside the sandbox. bubblewrap's new network namespace has only its own loopback: a few lines of node
 * listen on 127.0.0.1:<port> there, forward each connection to the egress proxy's socket bound into the sandbox,
 * and run the tool's command as their child (HTTP_PROXY and friends point at the relay).
 */

/** Where the proxy's socket appears inside the sandbox (the sandbox's own /tmp). */
export const SANDBOX_SOCKET = '/tmp/.sandpiper-egress.sock';
/** The relay's port on the sandbox's loopback. */
export const RELAY_PORT = 3128;

const RELAY_SOURCE = [
  "const net = require('node:net'), cp = require('node:child_process'), os = require('node:os');",
  'const [socketPath, port, ...command] = process.argv.slice(1);',
  'const server = net.createServer((inside) => {',
  '  const outside = net.connect(socketPath);',
  "  inside.on('error', () => outside.destroy()); outside.on('error', () => inside.destroy());",
  '  inside.pipe(outside); outside.pipe(inside);',
  '});',
  "server.on('error', (error) => { process.stderr.write(`sandpiper egress relay: ${error.message}\\n`); process.exit(125); });",
  "server.listen(Number(port), '127.0.0.1', () => {",
  "  const child = cp.spawn(command[0], command.slice(1), { stdio: 'inherit' });",
  "  for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, () => child.kill(name));",
  "  child.on('error', (error) => { process.stderr.write(`${error.message}\\n`); process.exit(127); });",
  "  child.on('exit', (code, signal) => process.exit(signal ? 128 + (os.constants.signals[signal] ?? 0) : (code ?? 1)));",
  '});',
].join('\n');

/** The command line that starts the relay, then `command` (already limited by prlimit) as its child. */
export function relayCommand(nodePath: string, command: readonly string[]): string[] {
  return [nodePath, '-e', RELAY_SOURCE, SANDBOX_SOCKET, String(RELAY_PORT), ...command];
}

/** bwrap arguments: the proxy's socket bound in, and the proxy variables every common client reads. */
export function relayBwrapArgs(hostSocket: string): string[] {
  const proxy = `http://127.0.0.1:${RELAY_PORT}`;
  const variables = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy'].flatMap(
    (name) => ['--setenv', name, proxy],
  );
  return ['--bind', hostSocket, SANDBOX_SOCKET, ...variables, '--unsetenv', 'NO_PROXY', '--unsetenv', 'no_proxy'];
}
