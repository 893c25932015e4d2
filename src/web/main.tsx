import { render } from 'preact';
import { App } from './app.tsx';
import { getLang } from './i18n.ts';
import './styles.css';

document.documentElement.lang = getLang();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
render(<App />, root);
