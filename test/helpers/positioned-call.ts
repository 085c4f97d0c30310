// A JSON request to one process of a split exchange (a gateway, a sequencer), answered as status, body and the journal
// position its Oddex-Position header names (a write's, or what a read covered).

export interface PositionedReply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  position: number;
  headers: Headers;
}

export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<PositionedReply> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), position: Number(res.headers.get('oddex-position')), headers: res.headers };
}
