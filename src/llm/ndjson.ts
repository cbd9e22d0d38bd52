import { StreamEndedEarly } from "./stream-runner.js";

/**
 * Newline-delimited JSON from a response body, one value per line (Ollama's streaming format).
 * A line that is not JSON is a bad response; a body that stops in the middle of a line was cut.
 */
export async function* readJsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line !== "") yield parseLine(line);
        newline = buffer.indexOf("\n");
      }
    }
    buffer += decoder.decode();
    const rest = buffer.trim();
    if (rest === "") return;
    try {
      yield JSON.parse(rest);
    } catch {
      throw new StreamEndedEarly("the stream ended in the middle of a line");
    }
  } finally {
    // Leaving early (a consumer break or an error) must close the connection, not leave it open.
    await reader.cancel().catch(() => undefined);
  }
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new SyntaxError(`the server sent a line that is not JSON: ${line.slice(0, 80)}`);
  }
}
