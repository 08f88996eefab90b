import * as pc from 'playcanvas';

/** Thin rings (a torus primitive is too fat to read as a ring), one mesh per size and device. */
const ringMeshes = new WeakMap<pc.GraphicsDevice, Map<string, pc.Mesh>>();

export function ring(app: pc.AppBase, name: string, mat: pc.Material, ringRadius: number, tubeRadius: number, y: number): pc.Entity {
  const device = app.graphicsDevice;
  const meshes = ringMeshes.get(device) ?? new Map<string, pc.Mesh>();
  ringMeshes.set(device, meshes);
  const key = `${ringRadius}/${tubeRadius}`;
  let mesh = meshes.get(key);
  if (!mesh) {
    mesh = pc.Mesh.fromGeometry(device, new pc.TorusGeometry({ ringRadius, tubeRadius, segments: 40, sides: 8 }));
    // The cache holds a reference: a MeshInstance destroys its mesh when the last one goes.
    mesh.incRefCount();
    meshes.set(key, mesh);
  }
  const entity = new pc.Entity(name);
  entity.addComponent('render', { castShadows: false });
  entity.render!.meshInstances = [new pc.MeshInstance(mesh, mat)];
  entity.setLocalPosition(0, y, 0);
  return entity;
}
