class ClassTool {
  name = 'class_shape';
  description = 'A class with run()';
  parameters = { type: 'object', properties: {} };
  prefix = 'from a class';

  async run(_args, context) {
    return `${this.prefix}, master=${context.isMaster()}`;
  }
}

export default ClassTool;
