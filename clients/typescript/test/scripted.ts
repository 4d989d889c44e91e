/**
 * A real HTTP server on 127.0.0.1 that answers from a script, for the retry tests: the
 * retries are checked against real sockets, real headers and real waits.
 */

import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Answer {
  status: number;
  /** JSON, or undefined for no body. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Close the connection without answering (the client sees it dropped mid-request). */
  drop?: boolean;
  /** Read the request and never answer (the client's timeout ends the attempt). */
  hang?: boolean;
}

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  arrivedMs: number;
}

export const DROP: Answer = { status: 0, drop: true };
export const HANG: Answer = { status: 0, hang: true };

/** An answer in the shape of every Corridor error. */
export function error(status: number, code: string, headers: Record<string, string> = {}): Answer {
  return { status, body: { code, message: `scripted ${code}`, requestId: "req_scripted" }, headers };
}

export class ScriptedServer {
  readonly requests: Received[] = [];
  private readonly script: Answer[];
  private readonly server = createServer((request, response) => this.handle(request, response));

  private constructor(answers: Answer[]) {
    this.script = [...answers];
  }

  static async start(...answers: Answer[]): Promise<ScriptedServer> {
    const scripted = new ScriptedServer(answers);
    await new Promise<void>((resolve) => scripted.server.listen(0, "127.0.0.1", resolve));
    return scripted;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      this.requests.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        arrivedMs: performance.now(),
      });
      const answer = this.script.shift() ?? error(404, "not_found");
      if (answer.hang) return;
      if (answer.drop) {
        request.socket.destroy();
        return;
      }
      const body = answer.body === undefined ? "" : JSON.stringify(answer.body);
      response.writeHead(answer.status, {
        "content-type": "application/json",
        "x-request-id": "req_scripted",
        ...answer.headers,
      });
      response.end(body);
    });
  }
}
