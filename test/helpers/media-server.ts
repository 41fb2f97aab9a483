// A small file host on loopback for media tests: what a messaging network
// would fetch at a message's mediaUrl. /a.png (image/png), /doc.pdf
// (application/pdf), /page.html (text/html), anything else 404.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);
export const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

const FILES: Record<string, { type: string; body: Buffer }> = {
  "/a.png": { type: "image/png", body: PNG },
  "/doc.pdf": { type: "application/pdf", body: PDF },
  "/page.html": { type: "text/html", body: Buffer.from("<!doctype html><p>hello</p>") },
};

export interface MediaServer {
  url: string;
  close(): Promise<void>;
}

export async function startMediaServer(): Promise<MediaServer> {
  const server: Server = createServer((req, res) => {
    const f = FILES[new URL(req.url ?? "/", "http://x").pathname];
    if (!f) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    res.writeHead(200, { "content-type": f.type, "content-length": String(f.body.length) }).end(f.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
