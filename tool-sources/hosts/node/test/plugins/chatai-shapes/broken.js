export default {
  name: "broken",
