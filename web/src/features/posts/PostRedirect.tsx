import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useApi } from '../../api/ApiContext';
import { getPost } from '../../api/posts';

/**
 * /post/{id}: looks the post up and replaces the URL with its page; to / when it has no
 * slug or category or the lookup fails (SPEC.md §2).
 */
export function PostRedirect() {
  const { id = '' } = useParams();
  const api = useApi();
  const navigate = useNavigate();
  useEffect(() => {
    const controller = new AbortController();
    getPost(api, id, controller.signal).then(
      (post) => navigate(post.slug && post.category && post.url ? post.url : '/', { replace: true }),
      () => {
        if (!controller.signal.aborted) navigate('/', { replace: true });
      },
    );
    return () => controller.abort();
  }, [api, id, navigate]);
  return (
    <p role="status" className="loading">
      Redirecting...
    </p>
  );
}
