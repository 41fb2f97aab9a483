// A TCP proxy on loopback in front of PostgreSQL that can stop forwarding
// without closing anything: the connections it stalls go half-open, as a NAT
// that forgot them or a failover leaves them (no FIN, no RST; what either side
// sends is lost). Connections made after a stall pass as usual.
import { connect, createServer, type Socket } from "node:net";

export interface StallingProxy {
  /** The database URL through the proxy (DATABASE_URL's, with the proxy's host and port). */
  url: string;
  /**
   * Stalls the connections open now whose client sent text `which` picks (all by default); returns how
   * many. Nothing is closed: each side waits for the other forever.
   */
  stall(which?: (sent: string) => boolean): number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  /** What the client sent first (its start-up and first statements), as text. */
  sent: string;
  stalled: boolean;
}

export async function startStallingProxy(databaseUrl: string): Promise<StallingProxy> {
  const target = new URL(databaseUrl);
  const pairs = new Set<Pair>();
  const proxy = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    const pair: Pair = { client, server, sent: "", stalled: false };
    pairs.add(pair);
    client.on("data", (d: Buffer) => {
      if (pair.sent.length < 16_384) pair.sent += d.toString("latin1");
      if (!pair.stalled) server.write(d);
    });
    server.on("data", (d: Buffer) => {
      if (!pair.stalled) client.write(d);
    });
    // An end or an error crosses the proxy unless the pair is stalled: then the other side never hears of it.
    const ended = (other: Socket) => () => {
      if (pair.stalled) return;
      other.destroy();
      pairs.delete(pair);
    };
    client.on("close", ended(server));
    server.on("close", ended(client));
    client.on("error", () => {});
    server.on("error", () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (!address || typeof address === "string") throw new Error("the proxy has no port");
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.toString(),
    stall(which = () => true) {
      let n = 0;
      for (const p of pairs)
        if (!p.stalled && !p.client.destroyed && which(p.sent)) {
          p.stalled = true;
          n += 1;
        }
      return n;
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
