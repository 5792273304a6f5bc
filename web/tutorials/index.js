// The tutorials' index page: the list of lessons from lessons.js.
import { LESSONS, drawNavigation } from './lessons.js';

drawNavigation('index.html');
document.getElementById('lesson-list').replaceChildren(...LESSONS.map((lesson) => {
  const item = document.createElement('li');
  const a = document.createElement('a');
  a.href = lesson.page;
  a.textContent = lesson.title;
  const text = document.createElement('p');
  const language = lesson.example.endsWith('.cpp') ? 'C++' : 'JavaScript';
  text.textContent = `${lesson.summary} (${language}: examples/${lesson.example})`;
  item.append(a, text);
  return item;
}));
