// The baseline: a bare Express 5 app answering a small JSON document, nothing else.
import express from 'express';

const app = express();
app.get('/', (_req, res) => {
  res.json({ ok: true, service: 'baseline' });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ listening: server.address().port }));
});
