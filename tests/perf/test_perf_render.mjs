#!/usr/bin/env node
// test_perf_render.mjs - a timeline SVG renders in a real browser: headless Chromium takes a
// screenshot, which is decoded here (lib.mjs readPng) and checked pixel by pixel:
//   - the picture is not blank (a large share of non-white pixels);
//   - every lane background and every stage colour that has bars is present in quantity;
//   - at the centre of every bar wider than 4 px (as the SVG places it) the pixel has that
//     bar's colour, so lanes and bars are where the structure says.
// Without a log argument the constructed log of lib.mjs is drawn; with one (the e2e test's
// daemon log: a run with several real proofs) that log is. Skipped (77) without Chromium
// (Debian package `chromium`, installed by scripts/install-deps.sh).
// Usage: node test_perf_render.mjs <cuzk-bench> [LOG]
import fs from 'node:fs';
import path from 'node:path';
import {
    check, countColours, finish, findChromium, hexRgb, near, readPng, runOk, screenshot,
    svgStructure, testCase, tmpdir, writeSyntheticTimeline,
} from './lib.mjs';

const [BENCH, LOG] = process.argv.slice(2);
if (!BENCH) {
    console.error('usage: test_perf_render.mjs <cuzk-bench> [LOG]');
    process.exit(2);
}
const CHROMIUM = findChromium();
if (!CHROMIUM) {
    console.log('skipped: no chromium (apt-get install chromium)');
    process.exit(77);
}
if (LOG && !fs.existsSync(LOG)) {
    console.log(`skipped: ${LOG} absent (the e2e ab test writes it)`);
    process.exit(77);
}
const DIR = tmpdir('render');

await testCase(LOG ? 'render_daemon_timeline' : 'render_constructed_timeline', () => {
    const log = LOG || writeSyntheticTimeline(DIR).file;
    const svgFile = path.join(DIR, 'timeline.svg'), png = path.join(DIR, 'timeline.png');
    runOk(BENCH, ['timeline', '--log', log, '--out', svgFile, '--width', '1400']);
    const svg = fs.readFileSync(svgFile, 'utf8');
    const st = svgStructure(svg);
    check(st.lanes.length >= 2 && st.bars.length >= 10, 'lanes and bars in the SVG', st.lanes.length, st.bars.length);
    if (LOG) {
        const workers = st.lanes.map((l) => l.worker);
        check(workers.some((w) => w.startsWith('cuzk-synth-')) && workers.some((w) => w.startsWith('cuzk-prove-')),
            'synthesis and prover lanes', workers);
        const jobs = new Set(st.bars.map((b) => b.job));
        check(jobs.size >= 3, 'several proofs', jobs.size);
    }
    screenshot(CHROMIUM, svgFile, png, st.width, st.height);
    const img = readPng(png);
    check(img.width === st.width && img.height === st.height, `screenshot ${img.width}x${img.height}, SVG ${st.width}x${st.height}`);

    const fills = [...new Set(st.bars.map((b) => b.fill))];
    const palette = ['#eef2f6', ...fills];
    const { counts, nonWhite } = countColours(img, palette);
    check(nonWhite > img.width * img.height * 0.05, 'not blank', nonWhite);
    check(counts[0] > 1000, 'lane backgrounds', counts[0]);
    palette.slice(1).forEach((c, i) => {
        const area = st.bars.filter((b) => b.fill === c).reduce((a, b) => a + b.w * b.h, 0);
        // the legend swatch (14 x 14) adds to it; antialiased edges take from it
        check(counts[i + 1] >= Math.min(150, area * 0.5), `colour ${c}: ${counts[i + 1]} px for ${area.toFixed(0)} px of bars`);
    });
    let probed = 0;
    for (const b of st.bars) {
        if (b.w <= 4) {
            continue;
        }
        const x = Math.floor(b.x + b.w / 2), y = Math.floor(b.y + 3); // above any label text
        const p = img.px(x, y);
        check(near(p, hexRgb(b.fill), 2), `pixel (${x},${y}) of ${b.stage} ${b.job} is ${p}, want ${b.fill}`);
        probed++;
    }
    check(probed >= 5, 'bars wide enough to probe', probed);
    console.log(`  ${st.lanes.length} lanes, ${st.bars.length} bars, ${fills.length} stage colours, ${probed} bars probed in ${img.width}x${img.height}`);
});

fs.rmSync(DIR, { recursive: true, force: true });
finish();
