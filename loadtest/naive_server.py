"""The naive baseline: how zero-shot models are commonly served, for comparison only.

A single-threaded stdlib HTTP server, one request at a time, no batching, no caching:
- NLI models: transformers' ``pipeline("zero-shot-classification")`` per request;
- embedding models: encode the text and every label on every request, cosine + softmax.

    python -m loadtest.naive_server --model-dir DIR --kind nli --port 8001
"""

from __future__ import annotations

import argparse
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer


def make_classifier(model_dir: str, kind: str, template: str, device: str = "cpu"):
    import torch
    from transformers import AutoModel, AutoTokenizer, pipeline

    torch.set_num_threads(len(os.sched_getaffinity(0)))
    if kind == "nli":
        # on a GPU in fp16, as the service runs there: what a user of the pipeline would do
        dtype = torch.float16 if device == "cuda" else torch.float32
        pipe = pipeline("zero-shot-classification", model=model_dir, device=device, dtype=dtype)

        def classify(text: str, labels: list[str]) -> dict:
            out = pipe(text, candidate_labels=labels, hypothesis_template=template)
            return {"labels": out["labels"], "scores": out["scores"]}

        return classify

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()

    @torch.inference_mode()
    def classify(text: str, labels: list[str]) -> dict:
        enc = tok(
            [text] + [template.format(label) for label in labels], padding=True, truncation=True, return_tensors="pt"
        )
        hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        emb = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1)
        scores = torch.softmax(20 * emb[1:] @ emb[0], dim=0).tolist()
        ranked = sorted(zip(labels, scores), key=lambda p: -p[1])
        return {"labels": [lab for lab, _ in ranked], "scores": [s for _, s in ranked]}

    return classify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--kind", choices=["nli", "embedding"], required=True)
    parser.add_argument("--template", default="This text is about {}.")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--device", default="cpu", help="cpu or cuda (NLI models)")
    args = parser.parse_args()
    classify = make_classifier(args.model_dir, args.kind, args.template, args.device)

    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.0 closes each connection, so a single-threaded server takes clients in turn
        protocol_version = "HTTP/1.0"

        def _send(self, code: int, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802
            self._send(200, {"status": "ok"})

        def do_POST(self) -> None:  # noqa: N802
            req = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            self._send(200, classify(req["text"], req["labels"]))

        def log_message(self, *args) -> None:
            pass

    class Server(HTTPServer):
        # a deep accept queue: waiting clients queue in the kernel (and their wait is measured) instead of
        # retrying refused connections after seconds of back-off
        request_queue_size = 1024

    Server(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
