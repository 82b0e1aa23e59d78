// One run's streams: start, confirm, reopen (replay) and cancel, feeding a RunView — and the run's audit
// records (who started, approved, rejected…), fetched when a stream settles and after a confirm.

import { cancelThread, getAudit, getCreative, getThread, itemsOf } from "./api.js";
import { followStream, postStream, threadEventsUrl } from "./sse.js";

export function newThreadId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class RunSession {
  /** onChange(session) is called when streaming starts/stops (to toggle buttons, refresh lists). */
  constructor(view, { onChange = () => {} } = {}) {
    this.view = view;
    this.onChange = onChange;
    this.controller = null;
    this.streaming = false;
    view.confirmFn = (payload) => this.confirm(payload);
    view.reloadFn = () => this.threadId && this.open(this.threadId).catch((err) => view.fail(err));
  }

  get threadId() {
    return this.view.threadId;
  }

  /** POST /api/agent/stream. Resolves when the stream is open; rejects with the API's error before that. */
  start(body) {
    const threadId = body.threadId || newThreadId();
    this.view.reset(threadId);
    this.view.setStatus("connecting");
    return this.stream((signal) => postStream("/api/agent/stream", { ...body, threadId }, signal));
  }

  /** POST /api/agent/confirm for the pending pause. */
  confirm(payload) {
    // the paused stream may still be delivering its last frames: let it finish (events dedupe by seq)
    const opened = this.stream((signal) => postStream("/api/agent/confirm", payload, signal), { keepPrevious: true });
    return opened.then((result) => {
      this.refreshAudit(); // the confirm is on record once its stream is open
      return result;
    });
  }

  /** Put the run's audit records into the view's timeline (best effort: the run shows without them). */
  async refreshAudit() {
    const creativeId = this.view.creativeId;
    if (!creativeId) return;
    try {
      const items = itemsOf(await getAudit(creativeId));
      if (this.view.creativeId === creativeId) this.view.setAudit(items);
    } catch {
      // not essential: the timeline stays without them
    }
  }

  /** Show a stored thread: its status, then every event (replay), following it live if it still runs. */
  async open(threadId) {
    this.stop();
    this.view.reset(threadId);
    const info = await getThread(threadId);
    if (info.creativeId) this.view.setCreative(info.creativeId);
    const opened = this.stream((signal) =>
      fetch(threadEventsUrl(threadId), { headers: { Accept: "text/event-stream", "Last-Event-ID": "0" }, signal }));
    await opened;
    return info;
  }

  async cancel() {
    if (!this.threadId) return;
    await cancelThread(this.threadId);
  }

  stop() {
    if (this.controller) this.controller.abort();
    this.controller = null;
  }

  stream(open, { keepPrevious = false } = {}) {
    if (!keepPrevious) this.stop();
    const controller = new AbortController();
    this.controller = controller;
    this.streaming = true;
    this.onChange(this);
    let connected = false;
    let resolveOpen;
    let rejectOpen;
    const opened = new Promise((resolve, reject) => {
      resolveOpen = resolve;
      rejectOpen = reject;
    });
    const finish = () => {
      if (this.controller === controller) {
        this.controller = null;
        this.streaming = false;
        this.onChange(this);
      }
    };
    followStream({
      open: () => open(controller.signal),
      threadId: this.view.threadId,
      lastSeq: this.view.lastSeq,
      signal: controller.signal,
      onEvent: (event) => this.view.apply(event),
      onStatus: (status) => {
        this.view.connection(status);
        if (status.state === "connected" && !connected) {
          connected = true;
          resolveOpen();
        }
      },
    }).then(
      async () => {
        const current = this.controller === controller;
        finish();
        if (!current) return; // a newer stream owns the view now
        await this.settle();
        if (!this.streaming) this.onChange(this);
      },
      (error) => {
        finish();
        if (error?.name === "AbortError") return;
        if (!connected) rejectOpen(error);
        else this.view.fail(error);
      },
    );
    return opened;
  }

  /** After [DONE]: reconcile the status with the server and fetch what only the creative holds. */
  async settle() {
    const threadId = this.threadId;
    if (!threadId) return;
    try {
      const info = await getThread(threadId);
      if (info.status && info.status !== this.view.status && !(info.status === "running" && this.view.status === "paused")) {
        this.view.setStatus(info.status);
      }
      const creativeId = info.creativeId || this.view.creativeId;
      if (creativeId) this.view.enrich(await getCreative(creativeId));
      await this.refreshAudit();
    } catch {
      // best effort: the stream already showed everything essential
    }
  }
}
