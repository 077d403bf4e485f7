/**
 * The x-axis ticks and y-axis range of the uPlot charts, as page-script source shared by the
 * stats page (`stats --format html`) and the dashboard: times are labelled in UTC (a day at
 * midnight, else the clock, the day again where it changes), and a y axis always holds 0.
 */
export const CHART_AXES = `
  function ticks(u, splits) {
    return splits.map(function (ts, i) {
      var text = new Date(ts * 1000).toISOString();
      var day = text.slice(5, 10), clock = text.slice(11, 16);
      var previous = i > 0 ? new Date(splits[i - 1] * 1000).toISOString().slice(5, 10) : "";
      if (clock === "00:00") return day;
      return day !== previous ? day + "\\n" + clock : clock;
    });
  }
  function range(u, min, max) {
    if (min == null || max == null) return [0, 1];
    var lo = Math.min(0, min), hi = Math.max(0, max);
    if (hi === lo) hi = lo + 1;
    return [lo, hi + (hi - lo) * 0.08];
  }
`;
