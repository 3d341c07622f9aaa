// The console's only script of its own (the Content-Security-Policy allows no inline script):
// copy buttons, confirmations, and uPlot charts drawn from data attributes the server wrote.
document.addEventListener('click', (event) => {
  const copy = event.target.closest('[data-copy-from]');
  if (copy) {
    const source = document.getElementById(copy.getAttribute('data-copy-from'));
    if (source && navigator.clipboard) navigator.clipboard.writeText(source.textContent.trim()).then(() => { copy.textContent = 'Copied'; }, () => {});
  }
});

document.addEventListener('submit', (event) => {
  const message = event.target.getAttribute('data-confirm');
  if (message && !window.confirm(message)) event.preventDefault();
});

function drawCharts() {
  if (typeof uPlot === 'undefined') return;
  for (const el of document.querySelectorAll('[data-chart]:not([data-drawn])')) {
    const chart = JSON.parse(el.getAttribute('data-chart'));
    const width = Math.max(280, el.clientWidth - 16);
    const series = [{}, ...chart.series.map((s, i) => ({ label: s.label, stroke: ['#1f5fd1', '#c0392b', '#27ae60', '#8e44ad'][i % 4], width: 2 }))];
    const data = [chart.x, ...chart.series.map((s) => s.values)];
    new uPlot({ title: chart.title, width, height: 220, series }, data, el);
    el.setAttribute('data-drawn', '');
  }
}
document.addEventListener('DOMContentLoaded', drawCharts);
