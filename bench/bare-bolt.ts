// The baseline of the process and ack benchmarks: a bare Bolt app in HTTP mode
// that acks every slash command and does nothing else, with a GET /readyz, in
// a process of its own. Run by `node bench/bare-bolt.ts` (Node's type
// stripping, no transpiler), like `npm start` runs Switchboard.
//   SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, SLACK_API_URL, PORT (0: a free port, printed as JSON on stdout)
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";

const receiver = new HTTPReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? "bench-signing-secret",
  endpoints: "/slack/events",
  logLevel: LogLevel.ERROR,
  customRoutes: [
    {
      path: "/readyz",
      method: ["GET"],
      handler: (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ready":true}');
      },
    },
  ],
});
const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  receiver,
  logLevel: LogLevel.ERROR,
  clientOptions: process.env.SLACK_API_URL ? { slackApiUrl: process.env.SLACK_API_URL } : {},
});
app.command(/.*/, async ({ ack }) => {
  await ack();
});
const server = (await receiver.start({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })) as Server;
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.once("SIGTERM", () => {
  void app.stop().then(() => process.exit(0));
});
