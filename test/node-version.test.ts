// On a Node.js older than 22.18, `npm start` says so in one line and exits
// non-zero (issue 39 §1): before, Node 20 printed a stack trace (a named
// import it lacks failed before any line of src/start.js ran).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const START = resolve("src/start.js");
const { nodeVersionProblem } = (await import(pathToFileURL(resolve("src/node-version.js")).href)) as {
  nodeVersionProblem: (version: string) => string | undefined;
};

/** `npm start`'s command with this Node.js made to say it is `version`. */
function startAs(node: string, version?: string) {
  const fake = version
    ? [`--import=data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`]
    : [];
  return spawnSync(node, ["--liftoff-only", ...fake, START], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, SLACK_BOT_TOKEN: "", SLACK_CLIENT_ID: "" },
    input: "",
  });
}

describe("the Node.js version", () => {
  it("is 22.18 or newer, else named in one line", () => {
    for (const ok of ["22.18.0", "22.20.1", "23.0.0", "24.21.0", "30.1.2"])
      expect(nodeVersionProblem(ok)).toBeUndefined();
    expect(nodeVersionProblem("20.20.2")).toBe("Switchboard needs Node.js 22.18 or newer; this is 20.20.2");
    expect(nodeVersionProblem("22.17.1")).toBe("Switchboard needs Node.js 22.18 or newer; this is 22.17.1");
    expect(nodeVersionProblem("18.0.0")).toMatch(/needs Node\.js 22\.18 or newer/);
  });

  it("npm start on an older Node.js prints that line alone and exits non-zero, before anything starts", () => {
    const r = startAs(process.execPath, "20.20.2");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toBe("Switchboard needs Node.js 22.18 or newer; this is 20.20.2\n");
    expect(r.stdout).toBe("");
  });

  // A real older Node.js where there is one (the Debian image's /usr/bin/node is 20).
  const old = "/usr/bin/node";
  const oldMajor = existsSync(old)
    ? Number(spawnSync(old, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout)
    : Number.NaN;
  it.skipIf(!(oldMajor < 22))("on a real Node.js older than 22, the same line and no stack trace", () => {
    const r = startAs(old);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^Switchboard needs Node\.js 22\.18 or newer; this is \d+\.\d+\.\d+\n$/);
  });
});
