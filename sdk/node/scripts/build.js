// Prepare the package from the repository's own files (run by `npm pack`, `make sdk-node`):
//   proto/  a copy of ../../proto/arena/v1/*.proto, which the package loads at run time
//   gen/    the message types, generated from those files by proto-loader-gen-types
//   types/  declarations of src/ (from its JSDoc) and of gen/, by tsc (which also checks src/)
// All three are made here, never edited, and kept out of git.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const HERE = path.resolve(__dirname, '..');
const SOURCE = path.resolve(HERE, '..', '..', 'proto');
const bin = (name) => path.join(HERE, 'node_modules', '.bin', name);

for (const folder of ['proto', 'gen', 'types']) {
  fs.rmSync(path.join(HERE, folder), { recursive: true, force: true });
}
const protos = fs.readdirSync(path.join(SOURCE, 'arena', 'v1')).filter((f) => f.endsWith('.proto'));
fs.mkdirSync(path.join(HERE, 'proto', 'arena', 'v1'), { recursive: true });
for (const file of protos) {
  fs.copyFileSync(path.join(SOURCE, 'arena', 'v1', file), path.join(HERE, 'proto', 'arena', 'v1', file));
}
// The same options as src/proto.js's LOADER_OPTIONS, so the types say what the loader gives.
execFileSync(
  bin('proto-loader-gen-types'),
  [
    '--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs',
    '--grpcLib=@grpc/grpc-js', '-I', path.join(HERE, 'proto'), '-O', path.join(HERE, 'gen'),
    ...protos.map((f) => `arena/v1/${f}`),
  ],
  { stdio: 'inherit', cwd: HERE },
);
execFileSync(bin('tsc'), ['-p', path.join(HERE, 'tsconfig.json')], { stdio: 'inherit', cwd: HERE });
