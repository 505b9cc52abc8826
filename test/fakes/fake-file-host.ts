/**
 * File bytes served by the platform fakes (Discord's CDN, Slack's files.slack.com) and by a stand-alone "foreign"
 * host: records every request with its Authorization header, so tests can prove a token never left the platform.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file a user attaches. */
export interface FakeFile {
  name: string;
  bytes: Buffer;
  /** The type the platform announces (and serves, unless `servedType`). */
  contentType: string;
  /** The type the file host answers with, when it differs (a sign-in page: `text/html`). */
  servedType?: string;
  /** The size the platform announces, when it differs from the bytes (an oversize file). */
  declaredSize?: number;
  /** The URL announced instead of the fake's own (a file on another host). */
  url?: string;
  /** The file host answers with a redirect to this URL instead of the bytes. */
  redirectTo?: string;
  /** The bytes are sent once this resolves (a slow download; the request is recorded on arrival). */
  held?: Promise<void>;
}

export interface FileRequest {
  path: string;
  authorization: string | undefined;
}

export class FakeFileStore {
  readonly requests: FileRequest[] = [];
  private readonly files = new Map<string, FakeFile>();

  /** Serves `file` at `path` (starting with `/`). */
  put(path: string, file: FakeFile): void {
    this.files.set(path, file);
  }

  /**
   * Answers a file request when `path` is one of ours (true), else leaves the response alone (false). `authorized`
   * false answers like Slack without a valid token: its sign-in page, HTTP 200, text/html.
   */
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    authorized: (header: string | undefined, path: string) => boolean = () => true,
  ): boolean {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const file = this.files.get(path);
    if (!file) return false;
    const authorization = req.headers.authorization;
    this.requests.push({ path, authorization });
    if (!authorized(authorization, path)) {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><body>Sign in to your workspace</body></html>');
      return true;
    }
    if (file.redirectTo) {
      res.writeHead(302, { location: file.redirectTo }).end();
      return true;
    }
    const answer = (): void => {
      res
        .writeHead(200, {
          'content-type': file.servedType ?? file.contentType,
          'content-length': String(file.bytes.length),
        })
        .end(file.bytes);
    };
    if (file.held === undefined) answer();
    else void file.held.then(answer);
    return true;
  }
}

/** A web server that is not the platform's: any request it gets is a leak the tests catch. */
export class ForeignFileHost {
  readonly store = new FakeFileStore();
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<ForeignFileHost> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
    const host = new ForeignFileHost(server, `http://localhost:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      if (!host.store.serve(req, res)) res.writeHead(404).end();
    });
    return host;
  }

  /** Serves `file` at `path`; resolves its URL. */
  put(path: string, file: FakeFile): string {
    this.store.put(path, file);
    return `${this.origin}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
