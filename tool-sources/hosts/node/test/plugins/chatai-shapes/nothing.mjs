export const notATool = { hello: 1 };
