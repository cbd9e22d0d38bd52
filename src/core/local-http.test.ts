import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { localFetch } from "./local-http.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve).closeAllConnections());
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// What the CLI's requests to a running `chunkpad serve` rely on (the proof of the token, the embed calls).
describe("localFetch", () => {
  it("sends the method, headers and body, and reads the JSON answer", async () => {
    const url = await serve((request, response) => {
      let body = "";
      request.on("data", (part: Buffer) => (body += part.toString()));
      request.on("end", () => {
        response.writeHead(201, { "content-type": "application/json" });
        response.end(JSON.stringify({ method: request.method, token: request.headers["x-token"], body: JSON.parse(body) as unknown }));
      });
    });
    const answer = await localFetch(`${url}/api/embed`, { method: "POST", headers: { "content-type": "application/json", "x-token": "secret" }, body: JSON.stringify({ texts: ["héron"] }) });
    expect(answer).toMatchObject({ ok: true, status: 201 });
    expect(await answer.json()).toEqual({ method: "POST", token: "secret", body: { texts: ["héron"] } });
  });

  it("does not follow a redirect: the answer is not ok", async () => {
    const url = await serve((_request, response) => {
      response.writeHead(302, { location: "http://example.org/" });
      response.end();
    });
    expect(await localFetch(`${url}/api/hello`, { redirect: "error" })).toMatchObject({ ok: false, status: 302 });
  });

  it("rejects with a TimeoutError when a server listens but does not answer in time", async () => {
    const url = await serve(() => undefined);
    await expect(localFetch(`${url}/api/hello`, { signal: AbortSignal.timeout(50) })).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("rejects when nothing listens there", async () => {
    const url = await serve(() => undefined);
    await new Promise((resolve) => (servers.pop() as http.Server).close(resolve));
    await expect(localFetch(`${url}/api/hello`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });
});
