// The per-step timing picture, one home for both pages that show it: the run report (report.mjs, copied into every
// workspace, so plain ES module with no dependency) and the merged page of `obflow report merge` (src/report/). Pure:
// rows of steps with their milliseconds in, the geometry of one SVG out; timing.svg.hbs draws it (a picture, not a
// table of numbers: each row is a bar, each step a segment as long as the step took, its number inside when it fits,
// its name and time in the segment's tooltip).

/**
 * @typedef {'passed' | 'failed' | 'skipped' | 'not-reached'} StepStatus
 * @typedef {{ step: string, ms: number, status: StepStatus }} TimingSegmentInput
 * @typedef {{ label: string, segments: TimingSegmentInput[] }} TimingRowInput
 * @typedef {{ x: number, width: number, fill: string, status: StepStatus, number: number, showNumber: boolean, textX: number, title: string }} TimingSegment
 * @typedef {{ label: string, y: number, textY: number, total: string, totalX: number, segments: TimingSegment[] }} TimingRow
 * @typedef {{ x: number, label: string }} TimingTick
 * @typedef {{ width: number, height: number, labelWidth: number, barHeight: number, axisY: number, ariaLabel: string, rows: TimingRow[], ticks: TimingTick[], legend: { number: number, name: string, fill: string }[] }} TimingPicture
 */

/** Colours of passed steps, in turn by the step's number (so a step has the same colour on every row). */
export const STEP_FILLS = ['#1a73e8', '#12b5cb', '#7baaf7', '#34a853', '#5f6368', '#9334e6', '#4ecde6'];
/** A failed step is red whatever its number: the eye finds it first. */
export const FAILED_FILL = '#d93025';
/** A step that did not run (skipped, not reached): grey, in the legend only (it has no time to draw). */
export const IDLE_FILL = '#bdc1c6';

const WIDTH = 880;
const BAR_HEIGHT = 18;
const ROW_GAP = 10;
const TOTAL_WIDTH = 70;
const AXIS_HEIGHT = 22;

/** Round numbers of the axis, in milliseconds: the first that keeps the axis to at most six ticks. */
const TICK_STEPS = [100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000];

/** `850 ms`, `1.2 s`, `2 min 5 s`. */
export function formatMs(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.round(ms / 100) / 10).toString()} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

const round = (value) => Math.round(value * 10) / 10;

/**
 * The picture's geometry. `steps` is the order (and numbering) of every step any row may name; `labelWidth` the room
 * for the rows' labels (0 hides them: the run report has one row).
 * @param {TimingRowInput[]} rows
 * @param {{ steps: string[], labelWidth?: number, title?: string }} options
 * @returns {TimingPicture}
 */
export function timingPicture(rows, options) {
  const labelWidth = options.labelWidth ?? 0;
  // Room on the left for the axis's first label (`0 ms`, centred on the bar's start) when there are no row labels.
  const left = labelWidth === 0 ? 20 : labelWidth + 8;
  const barWidth = WIDTH - left - TOTAL_WIDTH;
  const totals = rows.map((row) => row.segments.reduce((sum, segment) => sum + Math.max(0, segment.ms), 0));
  // A loop, not Math.max(...totals): a spread of many rows overflows the call stack.
  const longest = totals.reduce((max, total) => Math.max(max, total), 1);
  const scale = barWidth / longest;
  // Each step's number once (the first of a name, as indexOf found it): a search per segment made a picture of S steps
  // O(S²).
  const numbers = new Map();
  options.steps.forEach((name, index) => {
    if (!numbers.has(name)) numbers.set(name, index + 1);
  });
  const numberOf = (step) => numbers.get(step) ?? 0;
  const fillOf = (step) => STEP_FILLS[(Math.max(1, numberOf(step)) - 1) % STEP_FILLS.length];
  const drawn = rows.map((row, index) => {
    const y = index * (BAR_HEIGHT + ROW_GAP);
    let x = left;
    const segments = row.segments
      .filter((segment) => segment.ms > 0)
      .map((segment) => {
        const width = segment.ms * scale;
        const drawnSegment = {
          x: round(x),
          width: round(Math.max(width, 1)),
          fill: segment.status === 'failed' ? FAILED_FILL : fillOf(segment.step),
          status: segment.status,
          number: numberOf(segment.step),
          showNumber: width >= 18,
          textX: round(x + width / 2),
          title: `${row.label === '' ? '' : `${row.label} — `}${numberOf(segment.step)}. ${segment.step}: ${formatMs(segment.ms)} (${segment.status})`,
        };
        x += width;
        return drawnSegment;
      });
    return {
      label: row.label,
      y,
      textY: y + BAR_HEIGHT / 2 + 4,
      total: formatMs(totals[index] ?? 0),
      totalX: round(x + 6),
      segments,
    };
  });
  const statusOfStep = new Map();
  if (rows.length === 1)
    for (const segment of rows[0].segments) if (!statusOfStep.has(segment.step)) statusOfStep.set(segment.step, segment.status);
  const axisY = rows.length * (BAR_HEIGHT + ROW_GAP);
  const tick = TICK_STEPS.find((candidate) => longest / candidate <= 6) ?? TICK_STEPS[TICK_STEPS.length - 1];
  const ticks = [];
  for (let at = 0; at <= longest; at += tick) ticks.push({ x: round(left + at * scale), label: formatMs(at) });
  return {
    width: WIDTH,
    height: axisY + AXIS_HEIGHT,
    labelWidth,
    barHeight: BAR_HEIGHT,
    axisY,
    ariaLabel: options.title ?? 'How long each step took',
    rows: drawn,
    ticks,
    // One row (the run report): each step's swatch is what its segment is drawn in — red when it failed, grey when it
    // did not run — so the legend and the bar agree. Many rows (the merged page): the step's own colour.
    // (The one row's statuses by step, read once: a find per legend entry would make a long run's page quadratic.)
    legend: options.steps.map((name, index) => {
      const status = statusOfStep.get(name);
      const fill = status === 'failed' ? FAILED_FILL : status === 'skipped' || status === 'not-reached' ? IDLE_FILL : fillOf(name);
      return {
        number: index + 1,
        name,
        fill,
        ...(status !== undefined && status !== 'passed' ? { status: status === 'not-reached' ? 'not reached' : status } : {}),
      };
    }),
  };
}
