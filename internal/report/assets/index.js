// Sort a table by the clicked column: numbers by data-value, text otherwise.
document.querySelectorAll("table.sortable th").forEach((th, col) => {
  th.addEventListener("click", () => {
    const num = th.dataset.type === "num";
    const dir = th.dataset.dir === "asc" ? -1 : 1;
    th.closest("tr").querySelectorAll("th").forEach(h => delete h.dataset.dir);
    th.dataset.dir = dir === 1 ? "asc" : "desc";
    const key = r => { const c = r.cells[col]; return num ? parseFloat(c.dataset.value) || 0 : c.textContent; };
    // Each workload's runs are sorted within their group, under its heading.
    for (const body of th.closest("table").tBodies) {
      [...body.rows].filter(r => !r.classList.contains("ghead"))
        .sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : 0) * dir; })
        .forEach(r => body.appendChild(r));
    }
  });
});
