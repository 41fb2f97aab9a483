// Which Node.js Switchboard runs on, checked by src/start.js before anything
// else is loaded: plain JavaScript that any Node.js can read, so an older one
// says what it needs in one line instead of failing on what it lacks.

/** The oldest Node.js Switchboard runs on (package.json `engines`): type stripping on by default. */
export const NEEDED = [22, 18];

/**
 * The line to print when this Node.js is too old, else undefined.
 * @param {string} version process.versions.node, like "20.20.2"
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version) {
  const [major = 0, minor = 0] = version.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const ok = major > NEEDED[0] || (major === NEEDED[0] && minor >= NEEDED[1]);
  return ok ? undefined : `Switchboard needs Node.js ${NEEDED.join(".")} or newer; this is ${version}`;
}
