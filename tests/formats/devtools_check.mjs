// Loads a .heapsnapshot with Chrome DevTools' own heap snapshot model (the npm package
// heap-snapshot-toolkit re-exports the DevTools frontend code that the Memory panel runs) and
// prints what it understood as JSON, for devtools_reader_test.cpp to compare with the snapshot
// that was exported. Usage: node devtools_check.mjs <npm prefix> <file.heapsnapshot>
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [prefix, file] = process.argv.slice(2);
const toolkit = await import(
  pathToFileURL(path.join(prefix, 'node_modules', 'heap-snapshot-toolkit', 'index.js')).href);
const snap = await toolkit.parse(createReadStream(file, 'utf-8'));

const out = {
  nodeCount: snap.nodeCount,
  edgeCount: snap.containmentEdges.length / snap.edgeFieldsCount,
  totalSize: snap.totalSize,
  classes: {},  // DevTools' Summary view: class name -> { count, self }
  roots: [],    // children of the synthetic root
  objects: [],  // every non-synthetic node: [id, name, self size, edges, weak edges]
};
for (const aggregate of Object.values(snap.aggregatesWithFilter({}))) {
  out.classes[aggregate.name] = { count: aggregate.count, self: aggregate.self };
}
for (let it = snap.rootNode().edges(); it.hasNext(); it.next()) {
  const group = it.edge.node();
  const root = { name: group.name(), edges: 0, weak: 0, named: 0, names: [] };
  for (let e = group.edges(); e.hasNext(); e.next()) {
    root.edges++;
    root.names.push(String(e.edge.name()));
    if (e.edge.isWeak()) root.weak++;
    if (e.edge.type() === 'property') root.named++;
  }
  out.roots.push(root);
}
for (let it = snap.allNodes(); it.hasNext(); it.next()) {
  const node = it.node;
  if (node.type() === 'synthetic') continue;
  let edges = 0;
  const named = [];  // [edge type, name] of each edge, as DevTools shows them
  for (let e = node.edges(); e.hasNext(); e.next()) {
    edges++;
    named.push([e.edge.type(), String(e.edge.name())]);
  }
  out.objects.push([node.id(), node.name(), node.selfSize(), edges, node.type(), named]);
}
process.stdout.write(JSON.stringify(out));
