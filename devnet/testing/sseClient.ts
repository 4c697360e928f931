/**
 * A server-sent-events client for tests of `/event-stream` and `/events`: parses frames as a
 * browser's EventSource does (fields `event`, `id`, `data`, comments ignored), and can stop reading
 * its socket to play a slow client.
 */
import http from 'node:http';

export interface SseFrame {
  /** `event:` (undefined for an unnamed frame, which EventSource dispatches as `message`). */
  readonly event: string | undefined;
  readonly id: string | undefined;
  readonly data: string;
}

export interface SseOpenOptions {
  readonly headers?: Record<string, string>;
}

/** A response that was not a stream: its status, headers and body. */
export interface SseRefusal {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export class SseClient {
  readonly frames: SseFrame[] = [];
  readonly headers: http.IncomingHttpHeaders;
  /** Resolves when the server ends the stream (or the socket closes). */
  readonly ended: Promise<void>;
  readonly #res: http.IncomingMessage;
  readonly #req: http.ClientRequest;
  #waiters: (() => void)[] = [];
  #buffer = '';
  #fields: { event?: string; id?: string; data: string[] } = { data: [] };
  #done = false;

  private constructor(req: http.ClientRequest, res: http.IncomingMessage) {
    this.#req = req;
    this.#res = res;
    this.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.#parse(chunk));
    this.ended = new Promise((resolve) => {
      const end = () => {
        this.#done = true;
        this.#wake();
        resolve();
      };
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
    });
  }

  /** Opens a stream; resolves with the client on 200, or with the refusal otherwise. */
  static open(url: string, options: SseOpenOptions = {}): Promise<SseClient | SseRefusal> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { accept: 'text/event-stream', ...options.headers } }, (res) => {
        if (res.statusCode === 200) return resolve(new SseClient(req, res));
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
    });
  }

  /** Opens a stream that must be accepted. */
  static async connect(url: string, options: SseOpenOptions = {}): Promise<SseClient> {
    const opened = await SseClient.open(url, options);
    if (!(opened instanceof SseClient)) throw new Error(`stream refused: ${opened.status} ${opened.body}`);
    return opened;
  }

  /** Waits for the first frame (from the start) that matches; fails after `timeoutMs` or at the end of the stream. */
  async waitFor(match: (frame: SseFrame) => boolean, timeoutMs = 10_000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found !== undefined) return found;
      if (this.#done) throw new Error(`stream ended without the frame; got ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no such frame in ${timeoutMs} ms; got ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Stops reading the socket (the server's writes pile up), or reads again. */
  pause(): void {
    this.#res.pause();
  }
  resume(): void {
    this.#res.resume();
  }

  /** The id of the last frame that had one (what a browser sends as `Last-Event-ID`). */
  get lastEventId(): string | undefined {
    return [...this.frames].reverse().find((f) => f.id !== undefined)?.id;
  }

  close(): void {
    this.#req.destroy();
  }

  describe(): string {
    return this.frames.map((f) => `${f.event ?? 'message'}#${f.id ?? '-'}`).join(' ');
  }

  #parse(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.search(/\r?\n/)) >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + (this.#buffer[newline] === '\r' ? 2 : 1));
      if (line === '') {
        if (this.#fields.data.length > 0 || this.#fields.event !== undefined) {
          this.frames.push({ event: this.#fields.event, id: this.#fields.id, data: this.#fields.data.join('\n') });
        }
        this.#fields = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') this.#fields.data.push(value);
      else if (field === 'event') this.#fields.event = value;
      else if (field === 'id') this.#fields.id = value;
    }
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
