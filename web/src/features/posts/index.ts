// What other features may use of the posts feature.
export { PostPage } from './PostPage';
