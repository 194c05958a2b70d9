// mlcost ui: re-render the answer on every input change. The form is the state; its non-default
// values are the URL's query string (a link reproduces the answer). No framework, no build step.
"use strict";
(function () {
  const form = document.getElementById("inputs");
  const answer = document.getElementById("answer");
  let pending = null;
  let rendered = 0;

  function query() {
    const data = new FormData(form);
    const params = new URLSearchParams();
    for (const [key, value] of data.entries()) {
      if (typeof value === "string") params.set(key, value);
    }
    return params.toString();
  }

  function setShared(result) {
    const q = result.query || "";
    history.replaceState(null, "", q ? "?" + q : location.pathname);
    document.getElementById("link").href = "?" + q;
    for (const kind of ["json", "yaml", "report"]) {
      const format = kind === "report" ? "html" : kind;
      document.getElementById("export-" + kind).href = "/export?" + q + "&format=" + format;
    }
    document.getElementById("cli").textContent = result.cli;
    document.getElementById("python").textContent = result.python;
  }

  async function refresh() {
    form.dataset.q = new FormData(form).get("q");
    form.dataset.layout = new FormData(form).get("layout");
    if (pending) pending.abort();
    pending = new AbortController();
    const signal = pending.signal;
    document.body.classList.add("busy");
    try {
      const response = await fetch("/answer?" + query(), { signal });
      const result = await response.json();
      answer.innerHTML = result.html;
      if (!result.error) setShared(result);
      rendered += 1;
      document.body.dataset.rendered = String(rendered);
      document.body.classList.remove("busy");
      for (const box of ["compare", "explain"]) {
        if (document.getElementById(box + "-box").open) load(box);
        else document.getElementById(box).innerHTML = "";
      }
    } catch (error) {
      if (error.name !== "AbortError") throw error;
    }
  }

  async function load(box) {
    const target = document.getElementById(box);
    target.innerHTML = '<p class="muted">computing...</p>';
    const response = await fetch("/" + box + "?" + query());
    target.innerHTML = await response.text();
  }

  async function upload(input, kind, hidden) {
    const status = document.getElementById("upload-status");
    const file = input.files[0];
    if (!file) return;
    const limit = Number(form.dataset.maxUpload);
    if (file.size > limit) {
      status.innerHTML = "";
      answer.innerHTML = '<p class="error" role="alert">upload: ' + file.name + " is " +
        file.size + " bytes, expected at most " + limit + "</p>";
      return;
    }
    const body = new FormData();
    body.append("file", file);
    const response = await fetch("/upload?kind=" + kind, { method: "POST", body });
    const result = await response.json();
    if (result.error) {
      const line = document.createElement("p");
      line.className = "error";
      line.setAttribute("role", "alert");
      line.dataset.testid = "upload-error";
      line.textContent = result.error;
      answer.replaceChildren(line);
      return;
    }
    document.getElementById(hidden).value = result.id;
    status.textContent = kind + ": " + result.name;
    refresh();
  }

  form.addEventListener("change", (event) => {
    if (event.target.type === "file") return;
    if (event.target.name === "model") document.getElementById("upload").value = "";
    refresh();
  });
  for (const slider of form.querySelectorAll("input.pow2")) {
    slider.addEventListener("input", () => {
      const value = 2 ** Number(slider.value);
      document.getElementById(slider.dataset.target).value = value;
      slider.parentElement.querySelector("output").textContent = value;
      refresh();
    });
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); refresh(); });
  document.getElementById("model-file").addEventListener("change", (e) => upload(e.target, "model", "upload"));
  document.getElementById("profile-file").addEventListener("change", (e) => upload(e.target, "profile", "profile"));
  for (const box of ["compare", "explain"]) {
    document.getElementById(box + "-box").addEventListener("toggle", (event) => {
      if (event.target.open) load(box);
    });
  }
  document.body.dataset.ready = "1";
})();
