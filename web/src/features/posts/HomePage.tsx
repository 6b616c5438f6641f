/** Home: the author's welcome card. The Latest Posts list is added by a later issue. */
export function HomePage() {
  return (
    <section className="card welcome-card" aria-labelledby="welcome-heading">
      <h1 id="welcome-heading">Welcome</h1>
      <p>
        Welcome to my personal blog and journal. Here I write about the things I spend my time on: the garage,
        gadgets, food and drink, projects, aquariums, activities and the people around me.
      </p>
    </section>
  );
}
