// The tutorials, in reading order: one page each, one example program each (examples/: C++, except lesson 7's
// JavaScript — C++ has no AutoGraph), one doc each (docs/tutorials/).
export const LESSONS = [
  { page: 'retracing.html', title: '1. Retracing on ragged inputs', example: 'ragged_model.cpp',
    summary: 'Why a model fed inputs of changing length retraces, what an input signature and shape relaxation change, and when the long run pays for the traces.' },
  { page: 'graphs-vs-eager.html', title: '2. Graphs vs eager', example: 'graphs_vs_eager.cpp',
    summary: 'Many small ops gain a lot from tracing; one big convolution gains little. Measured here, in your browser.' },
  { page: 'tracing-rules.html', title: '3. Tracing rules', example: 'tracing_rules.cpp',
    summary: 'What goes into the cache key: dtypes and shapes of tensors, values of plain numbers, identity of variables, the structure of nested arguments. Concrete functions, the retracing warning counted per source function, gradients through nested functions.' },
  { page: 'side-effects.html', title: '4. Side effects and control flow', example: 'side_effects.cpp',
    summary: 'console.log runs once per trace, tl.print on every call; variables created inside a function; a host if on a tensor vs tl.cond; tl.whileLoop; assertions that fail when a call runs, not when it traces.' },
  { page: 'custom-loop.html', title: '5. A custom training loop with a CNN', example: 'custom_loop_cnn.cpp',
    summary: 'trainOnBatch / validateOnBatch, where tracing pays (the step and the whole loop, not map), the article\'s accuracy gap explained, keeping the best checkpoint.' },
  { page: 'keras-transfer.html', title: '6. Keras-style models and transfer', example: 'keras_transfer.cpp',
    summary: 'A shared trunk with two heads, fine-tuning a subset of variables, exporting the trunk and training a new head on the loaded copy, a dynamic RNN writing a TensorArray in a while loop, scalar summaries.' },
  { page: 'autograph.html', title: '7. AutoGraph in JavaScript', example: 'autograph.mjs',
    summary: 'Plain if, while and for over tensors become cond and while_loop nodes when traced: the converted code, the graphs, eager vs traced results, and the errors when a conversion cannot hold.' },
];

/** Fills <nav class="lessons"> with links to every lesson and <nav class="pager"> with the previous and next one. */
export function drawNavigation(currentPage) {
  const here = LESSONS.findIndex((lesson) => lesson.page === currentPage);
  for (const nav of document.querySelectorAll('nav.lessons')) {
    const links = [link('../index.html', 'Playground'), link('index.html', 'All tutorials'),
                   ...LESSONS.map((lesson, i) => link(lesson.page, lesson.title, i === here))];
    nav.replaceChildren(...links);
  }
  for (const nav of document.querySelectorAll('nav.pager')) {
    const parts = [];
    if (here > 0) parts.push(link(LESSONS[here - 1].page, `← ${LESSONS[here - 1].title}`));
    if (here >= 0 && here < LESSONS.length - 1) parts.push(link(LESSONS[here + 1].page, `${LESSONS[here + 1].title} →`));
    nav.replaceChildren(...parts);
  }
}

function link(href, text, current = false) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  if (current) a.setAttribute('aria-current', 'page');
  return a;
}
