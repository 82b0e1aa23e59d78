// Server-Sent Events over fetch (the studio POSTs JSON bodies, which EventSource cannot), with
// reconnection: a stream that drops before `data: [DONE]` is resumed from
// `GET /api/agent/threads/{id}/events` with `Last-Event-ID` = the last seq seen. Events are deduped
// by seq, so a replay never delivers anything twice. An ephemeral event (the streaming draft's
// `content_delta`: a frame without `id:` and without `seq`) is delivered as it comes and never moves the
// cursor — it is not stored, so no replay could return it. A `reconnect` event (the server stops and a
// peer continues the run) makes the `[DONE]` after it a drop: the stream is followed again.

import { ApiError, csrfHeaders, errorFrom, networkError } from "./api.js";

/**
 * Incremental SSE parser (the WHATWG algorithm, minus `retry`): feed it text chunks split anywhere;
 * it calls onFrame({id, event, data}) per dispatched frame and onComment(text) per comment line.
 */
export class SSEParser {
  constructor(onFrame, onComment = () => {}) {
    this.onFrame = onFrame;
    this.onComment = onComment;
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.data = [];
    this.id = null;
    this.event = null;
  }

  push(chunk) {
    this.buffer += chunk;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // a lone "\r" at the very end may be the first half of "\r\n": wait for more
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  /** End of input: a frame without its terminating blank line is incomplete and dropped. */
  end() {
    this.buffer = "";
    this.reset();
  }

  line(line) {
    if (line === "") {
      if (this.data.length) this.onFrame({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
      this.reset();
      return;
    }
    if (line.startsWith(":")) {
      this.onComment(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "event") this.event = value;
  }
}

/** Yield the frames of a fetch Response body as they arrive. */
export async function* readFrames(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  const queue = [];
  const parser = new SSEParser((frame) => queue.push(frame));
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      ended = done;
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
      while (queue.length) yield queue.shift();
    }
    parser.push(decoder.decode());
    parser.end();
    while (queue.length) yield queue.shift();
  } finally {
    // the consumer stopped early (at [DONE]): read the little that is left so the request completes
    // normally when the server closes the stream; an abort is the caller's AbortController's job
    if (!ended) {
      (async () => {
        try {
          while (!(await reader.read()).done);
        } catch {
          // aborted or reset: nothing left to read
        }
      })();
    }
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("aborted", "AbortError"));
    }, { once: true });
  });

/** Open the replay/follow stream of a thread after `lastSeq`. */
export function threadEventsUrl(threadId) {
  return `/api/agent/threads/${encodeURIComponent(threadId)}/events`;
}

/**
 * Run one logical stream to its `[DONE]`, reconnecting as needed.
 *   open():   () => Promise<Response> for the first connection (POST /stream, POST /confirm, or a replay)
 *   threadId: known thread id (a client-generated one for new runs) — needed to reconnect
 *   lastSeq:  events with seq <= lastSeq are skipped (already on screen)
 *   onEvent(event), onStatus({state: "connected"|"reconnecting"|"done", attempt, lastSeq})
 * Resolves with {lastSeq, threadId} at [DONE]; rejects with ApiError (HTTP error before the first
 * byte, or reconnection gave up) or AbortError.
 */
export async function followStream({ open, threadId = null, lastSeq = 0, onEvent, onStatus = () => {},
  signal, maxRetries = 8 }) {
  let attempt = 0;
  let first = true;
  let lastError = null;
  for (;;) {
    let response = null;
    try {
      if (first) {
        response = await open();
      } else {
        response = await fetch(threadEventsUrl(threadId), {
          headers: { Accept: "text/event-stream", "Last-Event-ID": String(lastSeq) },
          signal,
        });
      }
    } catch (cause) {
      if (cause?.name === "AbortError" || signal?.aborted) throw cause;
      if (cause instanceof ApiError) throw cause;
      lastError = networkError(cause);
      if (first && !threadId) throw lastError;
    }
    if (response && !response.ok) {
      const error = await errorFrom(response);
      // errors answering the first request are the API's verdict (validation, 409, 404 …): show them
      if (first || error.status < 500) throw error;
      lastError = error;
      response = null;
    }
    first = false;
    if (response) {
      onStatus({ state: "connected", attempt, lastSeq });
      let handedOn = false; // the server stops and another one runs the run now: follow it again
      try {
        for await (const frame of readFrames(response)) {
          if (frame.data === "[DONE]") {
            if (handedOn) break;
            onStatus({ state: "done", attempt, lastSeq });
            return { lastSeq, threadId };
          }
          let event;
          try {
            event = JSON.parse(frame.data);
          } catch {
            continue; // not ours: ignore a malformed frame rather than break the run view
          }
          if (event.threadId) threadId = event.threadId;
          if (event.type === "reconnect") {
            handedOn = true;
            continue;
          }
          const numbered = (event.seq ?? null) !== null || (frame.id ?? "") !== "";
          const seq = numbered ? Number(event.seq ?? frame.id) : NaN;
          if (Number.isFinite(seq)) {
            if (seq <= lastSeq) continue;
            lastSeq = seq;
          }
          attempt = 0;
          onEvent(event);
        }
      } catch (cause) {
        if (cause?.name === "AbortError" || signal?.aborted) throw cause;
        lastError = networkError(cause);
      }
    }
    // the stream ended (or failed) before [DONE]: resume from the last seq we have
    if (!threadId) throw lastError || new ApiError(0, "STREAM_LOST", "连接中断，且无法确定要恢复的任务");
    attempt += 1;
    if (attempt > maxRetries) {
      throw new ApiError(0, "STREAM_LOST", `连接中断，重试 ${maxRetries} 次后仍未恢复`, lastError?.message || null);
    }
    onStatus({ state: "reconnecting", attempt, lastSeq });
    await sleep(Math.min(250 * 2 ** (attempt - 1), 4000), signal);
  }
}

/** POST a JSON body (with the session's CSRF secret) and return the streaming Response (for
 * followStream's `open`). */
export async function postStream(url, body, signal) {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...(await csrfHeaders()) },
    body: JSON.stringify(body),
    signal,
  });
}
