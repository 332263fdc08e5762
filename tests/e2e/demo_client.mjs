#!/usr/bin/env node
// demo_client.mjs - the gRPC half of `make demo` (scripts/demo.sh): starts cuzkd on a unix
// socket with the 2 KiB test parameters, proves WinningPoSt, WindowPoSt, SnapDeals and PoRep C2
// from the vanilla proofs `cuzk-bench gen-vanilla` wrote (each FILE with its FILE.json
// sidecar), verifies every proof here with @noble/curves against the .vk and public inputs
// derived from the spec (lib.mjs), prints the per-stage timing table and stops the daemon.
//
// Usage: node demo_client.mjs <cuzkd> <params dir> <inputs dir>; the inputs dir holds
// c1.json, winning.vproof, window.json and snap-vproof.json with their sidecars.
// Exit 0 iff every proof completed and verified.
import fs from 'node:fs';
import path from 'node:path';
import * as L from './lib.mjs';

const [CUZKD, PARAMS, IN] = process.argv.slice(2);
if (!CUZKD || !PARAMS || !IN) {
    console.error('usage: demo_client.mjs <cuzkd> <params dir> <inputs dir>');
    process.exit(2);
}
const O = await L.loadOracles();
if (!O) {
    console.error('demo: the npm oracles are missing (run scripts/install-deps.sh)');
    process.exit(2);
}

const side = (f) => JSON.parse(fs.readFileSync(path.join(IN, f + '.json'), 'utf8'));
const file = (f) => fs.readFileSync(path.join(IN, f));
/** The proofs of a gen-vanilla output: raw bincode, or a JSON list of base64 proofs. */
const proofsOf = (f, enc) => (enc === 'base64-list' ? JSON.parse(file(f).toString('utf8')).map((b) => Buffer.from(b, 'base64')) : [file(f)]);
/** The (sector id, comm_r) a PoSt vanilla proof is for: its first 40 bytes (vanilla-proofs.md 2.2). */
const sectorOf = (p) => ({ id: Number(p.readBigUInt64LE(0)), comm_r: p.subarray(8, 40).toString('hex') });

const pc = side('c1.json'), wn = side('winning.vproof'), wd = side('window.json'), sn = side('snap-vproof.json');
const c1 = file('c1.json');
const wnP = proofsOf('winning.vproof', wn.encoding), wdP = proofsOf('window.json', wd.encoding);
const snP = proofsOf('snap-vproof.json', sn.encoding);
const size = pc.sector_size;
const jobs = [
    {
        kind: 'WINNING_POST', label: 'WinningPoSt',
        req: { request_id: 'winpost-demo', proof_kind: 'WINNING_POST', sector_size: size, registered_proof: wn.registered_proof,
            vanilla_proofs: wnP, miner_id: wn.miner_id, randomness: L.hex(wn.randomness) },
        inputs: () => L.winningInputs(L.hex(wn.randomness), sectorOf(wnP[0]), size),
    },
    {
        kind: 'WINDOW_POST_PARTITION', label: `WindowPoSt (${wdP.length} sectors)`,
        req: { request_id: 'wdpost-demo', proof_kind: 'WINDOW_POST_PARTITION', sector_size: size,
            registered_proof: wd.registered_proof, vanilla_proofs: wdP, miner_id: wd.miner_id,
            randomness: L.hex(wd.randomness), partition_index: wd.partition_index },
        inputs: () => L.windowInputs(L.hex(wd.randomness), wdP.map(sectorOf), wd.partition_index, wd.registered_proof, size),
    },
    {
        kind: 'SNAP_DEALS_UPDATE', label: 'SnapDeals',
        req: { request_id: 'snap-demo', proof_kind: 'SNAP_DEALS_UPDATE', sector_size: size, registered_proof: sn.registered_proof,
            vanilla_proofs: snP, miner_id: sn.miner_id, sector_number: sn.sector_number,
            comm_r_old: L.hex(sn.comm_r_old), comm_r_new: L.hex(sn.comm_r_new), comm_d_new: L.hex(sn.comm_d_new) },
        inputs: (k) => L.snapInputs(k, sn, size),
    },
    {
        kind: 'POREP_SEAL_COMMIT', label: 'PoRep C2',
        req: { request_id: 'porep-demo', proof_kind: 'POREP_SEAL_COMMIT', sector_size: size, registered_proof: pc.registered_proof,
            vanilla_proof: c1, miner_id: pc.miner_id, sector_number: pc.sector_number },
        inputs: (k) => L.porepInputs(L.parseC1(c1), k),
    },
];

const t0 = Date.now();
const d = await L.Daemon.start(O, CUZKD, fs.mkdtempSync(path.join(IN, 'cuzkd-')), PARAMS,
    ['--memory-total-budget', '8GiB', '--log-level', 'info']);
console.log(`cuzkd ready on unix://${d.sock} (${Date.now() - t0} ms); log: ${d.logPath}`);
const rows = [];
let bad = 0;
try {
    for (const j of jobs) {
        const t = Date.now();
        const r = await d.rpc('Prove', { submit: j.req });
        const wall = Date.now() - t;
        if (r.err) {
            console.log(`${j.label}: gRPC error ${r.err.code} ${r.err.details}`);
            bad++;
            continue;
        }
        const res = r.res.result;
        let verdict = `${res.status} ${res.error_message}`;
        if (res.status === 'COMPLETED') {
            const vk = L.readVk(O.bls, path.join(PARAMS, L.VK_2K[j.kind]));
            const tv = Date.now();
            const good = L.verifyAll(O.bls, vk, res.proof, j.inputs);
            verdict = `${res.proof.length} B, ${good ? 'verified' : 'DOES NOT VERIFY'} (noble, ${Date.now() - tv} ms)`;
            bad += good ? 0 : 1;
        } else {
            bad++;
        }
        console.log(`${j.label}: ${verdict}`);
        rows.push(L.timingRow(j.label, res, wall));
    }
} finally {
    const code = await d.stop();
    console.log(`cuzkd stopped (exit ${code})`);
    bad += code === 0 ? 0 : 1;
}
console.log('\n' + L.TIMING_HEADER + '\n' + rows.join('\n'));
console.log(`\nproofs: ${jobs.length - bad} of ${jobs.length} verified; client wall ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(bad ? 1 : 0);
