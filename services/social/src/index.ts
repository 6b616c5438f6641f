// services/social (issue 30): the blog's followers, remote actors, blocks, reactions and delivery.
export {};
