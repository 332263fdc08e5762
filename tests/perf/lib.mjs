// lib.mjs - what the performance workbench's tests share: running cuzk-bench, reading its
// bench-format lines, a PNG decoder (zlib from node, filters of the PNG specification) for
// screenshots, and the SVG attributes of timeline bars.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

let failures = 0;

export function check(cond, ...msg) {
    if (!cond) {
        throw new Error(msg.join(' '));
    }
}

// Runs fn as a named test case; a thrown error is a failure (the other cases still run).
export async function testCase(name, fn) {
    const t0 = Date.now();
    try {
        await fn();
        console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
        failures++;
        console.log(`FAIL ${name}: ${e.stack || e}`);
    }
}

export function finish() {
    console.log(failures ? `${failures} failure(s)` : 'all passed');
    process.exit(failures ? 1 : 0);
}

export function tmpdir(tag) {
    return fs.mkdtempSync(path.join(os.tmpdir(), `cuzk-perf-${tag}-`));
}

// Runs a command; returns {code, out, err}. Never throws on a non-zero exit.
export function run(cmd, args, opts = {}) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
    if (r.error) {
        throw r.error;
    }
    return { code: r.status, out: r.stdout, err: r.stderr };
}

export function runOk(cmd, args, opts = {}) {
    const r = run(cmd, args, opts);
    check(r.code === 0, `${path.basename(cmd)} ${args.join(' ')} exited ${r.code}:\n${r.err}\n${r.out}`);
    return r;
}

// bench/bench.h lines: name n iters min median max unit.
export function benchLines(text) {
    const lines = text.split('\n').filter((l) => l.trim().length);
    check(/^name\s+n\s+iters\s+min\s+median\s+max\s+unit$/.test(lines[0]), 'header:', lines[0]);
    const cases = [];
    for (const l of lines.slice(1)) {
        if (l.startsWith('memory ')) {
            continue;
        }
        const f = l.trim().split(/\s+/);
        check(f.length === 7, 'bench line with 7 fields:', l);
        cases.push({
            name: f[0], n: Number(f[1]), iters: Number(f[2]), min: Number(f[3]),
            median: Number(f[4]), max: Number(f[5]), unit: f[6],
        });
    }
    return cases;
}

// key=value pairs of a line.
export function kv(line) {
    const o = {};
    for (const m of line.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
        o[m[1]] = m[2].replace(/^"|"$/g, '');
    }
    return o;
}

// Decodes an 8-bit RGB or RGBA PNG (what Chromium writes) into {width, height, px(x, y)}.
export function readPng(file) {
    const buf = fs.readFileSync(file);
    check(buf.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])), 'PNG signature');
    let off = 8, width = 0, height = 0, depth = 0, ctype = 0, interlace = 0;
    const idat = [];
    while (off < buf.length) {
        const len = buf.readUInt32BE(off);
        const type = buf.toString('latin1', off + 4, off + 8);
        const data = buf.subarray(off + 8, off + 8 + len);
        if (type === 'IHDR') {
            width = data.readUInt32BE(0);
            height = data.readUInt32BE(4);
            depth = data[8];
            ctype = data[9];
            interlace = data[12];
        } else if (type === 'IDAT') {
            idat.push(data);
        } else if (type === 'IEND') {
            break;
        }
        off += 12 + len;
    }
    check(depth === 8 && (ctype === 2 || ctype === 6) && interlace === 0,
        `PNG format depth=${depth} color=${ctype} interlace=${interlace}`);
    const bpp = ctype === 6 ? 4 : 3, stride = width * bpp;
    const raw = zlib.inflateSync(Buffer.concat(idat));
    check(raw.length === height * (stride + 1), 'PNG data length');
    const img = Buffer.alloc(height * stride);
    for (let y = 0; y < height; y++) {
        const f = raw[y * (stride + 1)];
        const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
        const cur = img.subarray(y * stride, (y + 1) * stride);
        const prev = y ? img.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
        for (let i = 0; i < stride; i++) {
            const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
            let v = src[i];
            if (f === 1) {
                v += a;
            } else if (f === 2) {
                v += b;
            } else if (f === 3) {
                v += (a + b) >> 1;
            } else if (f === 4) {
                const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
                v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            } else {
                check(f === 0, 'PNG filter', f);
            }
            cur[i] = v & 255;
        }
    }
    return {
        width, height,
        px(x, y) {
            const o = y * stride + x * bpp;
            return [img[o], img[o + 1], img[o + 2]];
        },
    };
}

export function hexRgb(hex) {
    const v = parseInt(hex.slice(1), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

export function near(a, b, tol = 3) {
    return Math.abs(a[0] - b[0]) <= tol && Math.abs(a[1] - b[1]) <= tol && Math.abs(a[2] - b[2]) <= tol;
}

// Pixels per colour of a palette, over the whole image.
export function countColours(png, palette) {
    const want = palette.map(hexRgb), counts = new Array(palette.length).fill(0);
    let nonWhite = 0;
    for (let y = 0; y < png.height; y++) {
        for (let x = 0; x < png.width; x++) {
            const p = png.px(x, y);
            if (!(p[0] > 250 && p[1] > 250 && p[2] > 250)) {
                nonWhite++;
            }
            for (let i = 0; i < want.length; i++) {
                if (near(p, want[i], 2)) {
                    counts[i]++;
                }
            }
        }
    }
    return { counts, nonWhite };
}

// The bars and lanes of a timeline SVG.
export function svgStructure(svg) {
    const lanes = [...svg.matchAll(/<g class="lane" data-worker="([^"]*)" data-row="(\d+)">/g)]
        .map((m) => ({ worker: m[1], row: Number(m[2]) }));
    const bars = [...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="(\d+)" width="([\d.]+)" height="(\d+)" fill="(#[0-9a-f]{6})" data-stage="([^"]*)" data-job="([^"]*)" data-partition="([^"]*)">/g)]
        .map((m) => ({
            x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]), fill: m[5],
            stage: m[6], job: m[7], partition: m[8],
        }));
    const size = svg.match(/<svg [^>]*width="(\d+)" height="(\d+)"/);
    return { lanes, bars, width: Number(size[1]), height: Number(size[2]) };
}

// Headless Chromium (Debian's `chromium`), or null.
export function findChromium() {
    for (const c of ['chromium', 'chromium-browser', 'google-chrome']) {
        const r = spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' });
        if (r.status === 0 && r.stdout.trim()) {
            return r.stdout.trim();
        }
    }
    return null;
}

// Screenshot of a file at its own size (the SVG's width and height).
export function screenshot(chromium, file, png, width, height) {
    const r = run(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
        '--force-device-scale-factor=1', `--screenshot=${png}`, `--window-size=${width},${height}`,
        `file://${file}`], { timeout: 120000 });
    check(fs.existsSync(png), `chromium wrote no screenshot (exit ${r.code}):\n${r.err}`);
}

// ---- a constructed timing log ---------------------------------------------------------------
// 3 jobs (porep-c2) x 2 partitions: parse on cuzk-synth-0, partition k synthesized on
// cuzk-synth-k and proved on cuzk-prove-k; jobs two and three wait in the queue at the same
// time. Lines in the exact format of engine/timing.c and engine.c.

const STAGES = [['prep', 3], ['quotient', 50], ['msm_h', 100], ['msm_l', 50], ['msm_a', 30],
    ['msm_b_g1', 30], ['msm_b_g2', 100], ['assemble', 1], ['verify', 4]];

function syntheticLog() {
    const lines = ['2026-01-01T00:00:00.000Z level=info event=ready version=test'];
    const ev = [];
    const add = (job, k, stage, worker, start, ms) => {
        ev.push({ job, k, stage, worker, start, ms });
        lines.push(`2026-01-01T00:00:00.000Z level=info event=stage job=${job} kind=porep-c2 partition=${k} stage=${stage} worker=${worker} start_ms=${start.toFixed(3)} ms=${ms.toFixed(3)}`);
    };
    const jobs = [['job-one', 0, 0], ['job-two', 5, 500], ['job-three', 6, 1000]];
    const totals = {};
    for (const [job, submit, t0] of jobs) {
        add(job, '-', 'queue', 'queue', submit, t0 - submit + 1);
        add(job, '-', 'parse', 'cuzk-synth-0', t0 + 1, 10);
        let end = 0;
        for (const k of [0, 1]) {
            const s0 = t0 + 11;
            const synth = 100 + 10 * k;
            add(job, k, 'synthesis', `cuzk-synth-${k}`, s0, synth);
            add(job, k, 'finish', `cuzk-synth-${k}`, s0 + synth, 1);
            let t = s0 + synth + 1;
            for (const [st, ms] of STAGES) {
                add(job, k, st, `cuzk-prove-${k}`, t, ms);
                t += ms;
            }
            end = Math.max(end, t);
        }
        totals[job] = end - submit + 2; // 2 ms after the last stage
        lines.push(`2026-01-01T00:00:01.000Z level=info job=${job} kind=porep-c2 status=completed partitions=2 queue_ms=${t0 - submit} srs_ms=0 synth_ms=0 prove_ms=0 verify_ms=0 total_ms=${totals[job]}`);
    }
    lines.push('some unrelated line without keys');
    return { text: lines.join('\n') + '\n', ev, totals };
}

export function writeSyntheticTimeline(dir) {
    const log = syntheticLog();
    const file = path.join(dir, 'synthetic.log');
    fs.writeFileSync(file, log.text);
    return { file, ...log };
}

