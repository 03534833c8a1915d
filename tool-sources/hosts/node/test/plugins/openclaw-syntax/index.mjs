export default function (api) {
  api.registerTool({ name: "x", 
