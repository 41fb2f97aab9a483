// Slack's Socket Mode side, on the fake Slack's own port: `apps.connections.open`
// (with the app token) hands out a ws:// URL of this server; a connection gets
// `hello`, then the test sends envelopes (slash commands, interactions,
// events) and waits for their acks, or asks the app to reconnect with a
// `disconnect` message as Slack does before recycling a connection.
// A minimal WebSocket server (RFC 6455: the handshake, text, close, ping and
// pong frames; no extensions), since @slack/socket-mode speaks undici's
// WebSocket and the `ws` package is not installed.
import { createHash, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { waitForEvent } from "./wait-for.ts";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are loose JSON.
type Json = any;

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head =
    len < 126
      ? Buffer.from([0x80 | opcode, len])
      : len < 65536
        ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff])
        : (() => {
            const b = Buffer.alloc(10);
            b[0] = 0x80 | opcode;
            b[1] = 127;
            b.writeBigUInt64BE(BigInt(len), 2);
            return b;
          })();
  return Buffer.concat([head, payload]);
}

class Connection {
  private buffer = Buffer.alloc(0);
  open = true;

  private readonly socket: Duplex;
  private readonly onText: (text: string) => void;
  private readonly onClose: () => void;

  constructor(socket: Duplex, onText: (text: string) => void, onClose: () => void) {
    this.socket = socket;
    this.onText = onText;
    this.onClose = onClose;
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("close", () => this.closed());
    socket.on("error", () => this.closed());
  }

  sendJson(body: Json): void {
    if (this.open) this.socket.write(frame(1, Buffer.from(JSON.stringify(body))));
  }

  close(): void {
    if (!this.open) return;
    this.socket.write(frame(8, Buffer.from([0x03, 0xe8])));
    this.socket.end();
    this.closed();
  }

  private closed() {
    if (!this.open) return;
    this.open = false;
    this.onClose();
  }

  private read(chunk: Buffer) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const opcode = this.buffer[0]! & 0x0f;
      const masked = (this.buffer[1]! & 0x80) !== 0;
      let len = this.buffer[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buffer.length < 4) return;
        len = this.buffer.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buffer.length < 10) return;
        len = Number(this.buffer.readBigUInt64BE(2));
        at = 10;
      }
      const maskAt = at;
      if (masked) at += 4;
      if (this.buffer.length < at + len) return;
      const payload = Buffer.from(this.buffer.subarray(at, at + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= this.buffer[maskAt + (i % 4)]!;
      this.buffer = this.buffer.subarray(at + len);
      if (opcode === 1) this.onText(payload.toString("utf8"));
      else if (opcode === 8) this.close();
      else if (opcode === 9 && this.open) this.socket.write(frame(10, payload));
    }
  }
}

export interface Ack {
  envelope_id: string;
  payload?: Json;
}

export class FakeSocketMode {
  /** Every connection made, in order (a reconnect adds one). */
  readonly connections: Connection[] = [];
  readonly acks: Ack[] = [];
  private readonly tickets = new Set<string>();
  private readonly events = new EventEmitter();
  private seq = 0;

  private readonly origin: () => string;

  constructor(origin: () => string) {
    this.origin = origin;
    this.events.setMaxListeners(100);
  }

  /** apps.connections.open: a URL good for one connection. */
  open(): { ok: true; url: string } {
    const ticket = randomBytes(6).toString("hex");
    this.tickets.add(ticket);
    return { ok: true, url: `${this.origin().replace(/^http/, "ws")}/link/?ticket=${ticket}` };
  }

  /** The fake Slack server's `upgrade` handler. */
  upgrade(req: IncomingMessage, socket: Duplex): void {
    const ticket = new URL(req.url ?? "/", "http://x").searchParams.get("ticket") ?? "";
    const key = req.headers["sec-websocket-key"];
    if (!this.tickets.delete(ticket) || typeof key !== "string") {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    const accept = createHash("sha1")
      .update(key + GUID)
      .digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    const conn = new Connection(
      socket,
      (text) => {
        let msg: Json;
        try {
          msg = JSON.parse(text);
        } catch {
          return;
        }
        if (typeof msg?.envelope_id === "string") {
          this.acks.push(msg);
          this.events.emit("change");
        }
      },
      () => this.events.emit("change"),
    );
    this.connections.push(conn);
    conn.sendJson({ type: "hello", num_connections: 1, connection_info: { app_id: "A0FAKE" } });
    this.events.emit("change");
  }

  /** The connection in use (the latest open one). */
  get live(): Connection | undefined {
    return [...this.connections].reverse().find((c) => c.open);
  }

  waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
    return waitForEvent(
      this.events,
      "change",
      check,
      timeoutMs,
      `fake Socket Mode: timed out waiting for ${what}`,
    );
  }

  /** Waits until `n` connections were made, the last one open. */
  connected(n = 1): Promise<Connection> {
    return this.waitFor(() => this.connections.length >= n && this.live, `connection ${n}`);
  }

  /** Sends an envelope on the live connection; resolves with its ack. */
  async send(type: string, payload: Json, extra: Json = {}): Promise<Ack> {
    const envelope_id = extra.envelope_id ?? `env-${++this.seq}`;
    const conn = await this.connected();
    const before = this.acks.filter((a) => a.envelope_id === envelope_id).length;
    conn.sendJson({ envelope_id, type, payload, accepts_response_payload: type !== "events_api", ...extra });
    return this.waitFor(
      () => this.acks.filter((a) => a.envelope_id === envelope_id)[before],
      `the ack of ${type} ${envelope_id}`,
    );
  }

  /** Slack's "reconnect, please" before it recycles a connection. */
  async disconnect(reason = "refresh_requested"): Promise<void> {
    const conn = await this.connected();
    conn.sendJson({ type: "disconnect", reason, debug_info: { host: "fake" } });
  }

  closeAll(): void {
    for (const c of this.connections) c.close();
  }
}
