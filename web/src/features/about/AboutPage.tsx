/** About: the author's page. The contact and subscribe forms are added by a later issue. */
export function AboutPage() {
  return (
    <section className="card" aria-labelledby="about-heading">
      <h1 id="about-heading">About</h1>
      <p>This is a personal blog and journal, written and run by its author.</p>
    </section>
  );
}
