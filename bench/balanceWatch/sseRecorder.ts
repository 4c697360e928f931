/** Records every frame of an SSE stream with the `performance.now()` at which it was parsed. */
import { performance } from 'node:perf_hooks';

export interface TimedFrame {
  readonly at: number;
  readonly event: string;
  readonly data: string;
}

export interface SseRecorder {
  readonly frames: TimedFrame[];
  close(): void;
}

/** Opens `url` with `headers` and records its frames until closed; resolves once the response started. */
export async function recordSse(url: string, headers: Record<string, string>): Promise<SseRecorder> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  if (!res.ok || res.body === null) throw new Error(`${url}: HTTP ${res.status}`);
  const frames: TimedFrame[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for await (const chunk of res.body!) {
        const at = performance.now();
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length > 0) frames.push({ at, event, data: data.join('\n') });
        }
      }
    } catch {
      // closed
    }
  })();
  return { frames, close: () => abort.abort() };
}
