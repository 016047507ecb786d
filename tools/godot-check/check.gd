# Loads animtune's Godot export with Godot's own code and prints what Godot read, as JSON.
#
#   godot --headless --script tools/godot-check/check.gd -- FILE.tres [--glb MODEL.glb]
#       [--travel FROM,TO] [--condition NAME] [--auto FROM,TO,NAME=VALUE ...]
#
# FILE.tres goes through ResourceLoader.load (Godot's text resource parser). Every error Godot
# logs while the check runs (parse errors included) is caught by a Logger and listed in
# "errors"; the exit status is 1 when there is any. With --glb the model is loaded with the
# runtime GLTFDocument (the code Godot's glTF importer runs) and every AnimationNodeAnimation's
# animation must be one its AnimationPlayer has. With --travel too, an AnimationTree plays the
# machine on that player: it starts in FROM, travels to TO, and is advanced past the fade; the
# playback's current node and the fade's length as Godot ran it are reported. With --condition,
# the condition is then set (and cleared once taken, as a game clears a trigger) and the tree
# advanced until the state it led to ends: the nodes after both are reported. Each --auto starts
# the tree in FROM with the expression input NAME (a property of the tree's
# advance_expression_base_node) at VALUE and advances until it reaches TO (at most half a second),
# reporting where it is: Godot evaluating the advance expressions as animtune meant them. Every
# advance_expression is also parsed with Godot's Expression. Run by tests/godot.rs (.tools/godot/godot,
# installed by scripts/install-godot.sh).
extends SceneTree


# The advance expressions' inputs: properties read through _get.
class Inputs:
	extends Node
	var values := {}

	func _get(property: StringName) -> Variant:
		return values.get(String(property))


class Catch:
	extends Logger
	var errors: Array[String] = []

	func _log_error(function: String, file: String, line: int, code: String, rationale: String,
			_editor_notify: bool, error_type: int, _script_backtraces: Array[ScriptBacktrace]) -> void:
		# error_type 1 is a warning (ERROR_TYPE_WARNING); everything else fails the check.
		if error_type == 1:
			return
		var what := rationale if rationale != "" else code
		errors.append("%s (%s:%d in %s)" % [what, file, line, function])

	func _log_message(_message: String, _error: bool) -> void:
		pass


var catch := Catch.new()
# The resource as ResourceLoader.load returned it (null when it could not).
var machine: Resource = null


# The file is loaded here and checked in the first frame: Godot finishes some of a loaded
# resource's set-up in deferred calls (a 2-D blend space triangulates its points), as a game
# sees it a frame later.
func _initialize() -> void:
	OS.add_logger(catch)
	var args := OS.get_cmdline_user_args()
	if args.size() >= 1:
		machine = ResourceLoader.load(args[0], "", ResourceLoader.CACHE_MODE_IGNORE)


func _process(_delta: float) -> bool:
	var report := check(OS.get_cmdline_user_args())
	report["errors"] = catch.errors
	print(JSON.stringify(report, "  ", false))
	quit(1 if catch.errors.size() > 0 else 0)
	return true


func check(args: PackedStringArray) -> Dictionary:
	var report := {"godot": Engine.get_version_info()["string"]}
	if args.size() < 1:
		push_error("usage: check.gd -- FILE.tres [--glb MODEL.glb] [--travel FROM,TO] [--condition NAME] [--auto FROM,TO,NAME=VALUE]")
		return report
	var glb := ""
	var travel := PackedStringArray()
	var condition := ""
	var autos := []
	var i := 1
	while i < args.size():
		if args[i] == "--glb" and i + 1 < args.size():
			glb = args[i + 1]
		elif args[i] == "--travel" and i + 1 < args.size():
			travel = args[i + 1].split(",")
		elif args[i] == "--condition" and i + 1 < args.size():
			condition = args[i + 1]
		elif args[i] == "--auto" and i + 1 < args.size():
			autos.append(args[i + 1])
		else:
			push_error("unknown argument %s" % args[i])
		i += 2
	if machine == null:
		push_error("ResourceLoader.load returned null for %s" % args[0])
		return report
	report["class"] = machine.get_class()
	if not machine is AnimationNodeStateMachine:
		return report
	report["states"] = states(machine)
	report["transitions"] = transitions(machine)
	if glb != "":
		report["glb"] = model(machine, glb, travel, condition, autos)
	return report


func states(machine: AnimationNodeStateMachine) -> Array:
	var out := []
	for name in machine.get_node_list():
		var node: AnimationNode = machine.get_node(name)
		var state := {"name": String(name), "class": node.get_class()}
		if node is AnimationNodeAnimation:
			state["animation"] = String(node.animation)
		elif node is AnimationNodeBlendSpace1D or node is AnimationNodeBlendSpace2D:
			var points := []
			for p in node.get_blend_point_count():
				var point_node = node.get_blend_point_node(p)
				var pos = node.get_blend_point_position(p)
				points.append({
					"class": point_node.get_class(),
					"animation": String(point_node.animation) if point_node is AnimationNodeAnimation else "",
					"pos": [pos.x, pos.y] if pos is Vector2 else [pos],
				})
			state["points"] = points
			if node is AnimationNodeBlendSpace2D:
				state["triangles"] = node.get_triangle_count()
			state["sync"] = node.sync
			var lo = node.min_space
			var hi = node.max_space
			state["min_space"] = [lo.x, lo.y] if lo is Vector2 else [lo]
			state["max_space"] = [hi.x, hi.y] if hi is Vector2 else [hi]
		out.append(state)
	return out


func transitions(machine: AnimationNodeStateMachine) -> Array:
	var out := []
	for t in machine.get_transition_count():
		var transition := machine.get_transition(t)
		var curve = transition.xfade_curve
		var parses = null
		if transition.advance_expression != "":
			parses = Expression.new().parse(transition.advance_expression) == OK
		var points = null
		if curve is Curve:
			points = []
			for p in curve.point_count:
				var pos: Vector2 = curve.get_point_position(p)
				points.append([pos.x, pos.y, curve.get_point_left_tangent(p), curve.get_point_right_tangent(p)])
		out.append({
			"from": String(machine.get_transition_from(t)),
			"to": String(machine.get_transition_to(t)),
			"xfade_time": transition.xfade_time,
			"switch_mode": transition.switch_mode,
			"advance_mode": transition.advance_mode,
			"advance_condition": String(transition.advance_condition),
			"advance_expression": transition.advance_expression,
			"expression_parses": parses,
			"priority": transition.priority,
			"curve": points,
			# Curve.sample at the fade's middle, as the blend reads it (null: linear).
			"curve_at_half": curve.sample(0.5) if curve is Curve else null,
		})
	return out


# The model through the runtime GLTFDocument: its animations, the machine's clip names it lacks,
# and (with `travel`) an AnimationTree playing the machine on its AnimationPlayer.
func model(machine: AnimationNodeStateMachine, path: String, travel: PackedStringArray, condition: String,
		autos: Array) -> Dictionary:
	var out := {}
	var document := GLTFDocument.new()
	var state := GLTFState.new()
	var err := document.append_from_file(path, state)
	if err != OK:
		push_error("GLTFDocument.append_from_file(%s): %s" % [path, error_string(err)])
		return out
	var scene: Node = document.generate_scene(state)
	if scene == null:
		push_error("GLTFDocument.generate_scene returned null")
		return out
	# The editor build's GLTFDocument makes ImporterMeshInstance3D nodes; Godot's scene importer
	# turns them into MeshInstance3D, which the blend shape tracks need. Do the same.
	for node in scene.find_children("*", "ImporterMeshInstance3D", true, false):
		var mesh_instance := MeshInstance3D.new()
		mesh_instance.name = node.name
		mesh_instance.transform = node.transform
		mesh_instance.mesh = node.mesh.get_mesh()
		mesh_instance.skin = node.skin
		mesh_instance.skeleton = node.skeleton_path
		node.replace_by(mesh_instance)
		node.free()
	root.add_child(scene)
	var players := scene.find_children("*", "AnimationPlayer", true, false)
	if players.is_empty():
		push_error("no AnimationPlayer in %s" % path)
		return out
	var player: AnimationPlayer = players[0]
	var animations := []
	var lengths := {}
	for name in player.get_animation_list():
		animations.append(String(name))
		lengths[String(name)] = player.get_animation(name).length
	out["animations"] = animations
	out["lengths_secs"] = lengths
	var missing := []
	for name in clip_names(machine):
		if not player.has_animation(name):
			missing.append(name)
	out["missing"] = missing
	if travel.size() == 2:
		out["travel"] = play(machine, player, travel[0], travel[1], condition)
	var auto_runs := []
	for auto in autos:
		auto_runs.append(auto_run(machine, player, auto))
	out["auto"] = auto_runs
	scene.queue_free()
	return out


func clip_names(machine: AnimationNodeStateMachine) -> Array:
	var names := []
	for name in machine.get_node_list():
		var node = machine.get_node(name)
		if node is AnimationNodeAnimation:
			names.append(String(node.animation))
		elif node is AnimationNodeBlendSpace1D or node is AnimationNodeBlendSpace2D:
			for p in node.get_blend_point_count():
				var point = node.get_blend_point_node(p)
				if point is AnimationNodeAnimation:
					names.append(String(point.animation))
	return names


# An AnimationTree on `player`'s libraries: start in `from`, travel to `to`, advance until the
# fade ends; then, with `condition`, set it and advance until the state it led to has ended.
func play(machine: AnimationNodeStateMachine, player: AnimationPlayer, from: String, to: String,
		condition: String) -> Dictionary:
	var tree := animation_tree(machine, player)
	var playback: AnimationNodeStateMachinePlayback = tree.get("parameters/playback")
	var step := 1.0 / 60.0
	playback.start(from)
	tree.advance(step)
	var out := {"start": String(playback.get_current_node())}
	playback.travel(to)
	tree.advance(step)
	out["after_one_step"] = String(playback.get_current_node())
	out["fading_from"] = String(playback.get_fading_from_node())
	# Frames until the fade has ended (at most two seconds).
	var fade_frames := 1
	while playback.get_fading_from_node() != &"" and fade_frames < 120:
		tree.advance(step)
		fade_frames += 1
	out["fade_secs"] = fade_frames * step
	out["after_fade"] = String(playback.get_current_node())
	if condition != "":
		tree.set("parameters/conditions/" + condition, true)
		tree.advance(step)
		out["after_condition"] = String(playback.get_current_node())
		tree.set("parameters/conditions/" + condition, false)
		var entered := playback.get_current_node()
		var frames := 0
		while playback.get_current_node() == entered and frames < 600:
			tree.advance(step)
			frames += 1
		out["after_that_state"] = String(playback.get_current_node())
		out["that_state_secs"] = frames * step
	tree.queue_free()
	return out


# An AnimationTree playing `machine` on `player`'s libraries, advanced by hand, its advance
# expressions reading an Inputs node.
func animation_tree(machine: AnimationNodeStateMachine, player: AnimationPlayer) -> AnimationTree:
	var tree := AnimationTree.new()
	player.get_parent().add_child(tree)
	tree.root_node = tree.get_path_to(player.get_node(player.root_node))
	for library in player.get_animation_library_list():
		tree.add_animation_library(library, player.get_animation_library(library))
	tree.callback_mode_process = AnimationMixer.ANIMATION_CALLBACK_MODE_PROCESS_MANUAL
	var inputs := Inputs.new()
	inputs.name = "Inputs"
	tree.add_child(inputs)
	tree.advance_expression_base_node = NodePath("Inputs")
	tree.tree_root = machine
	tree.active = true
	return tree


# `spec` is FROM,TO,NAME=VALUE: start in FROM with NAME at VALUE; advance until TO (at most half
# a second); where the playback is then, and after how long.
func auto_run(machine: AnimationNodeStateMachine, player: AnimationPlayer, spec: String) -> Dictionary:
	var parts := spec.split(",")
	if parts.size() != 3 or not "=" in parts[2]:
		push_error("--auto wants FROM,TO,NAME=VALUE, not %s" % spec)
		return {}
	var tree := animation_tree(machine, player)
	var inputs: Inputs = tree.get_node("Inputs")
	var playback: AnimationNodeStateMachinePlayback = tree.get("parameters/playback")
	var step := 1.0 / 60.0
	playback.start(parts[0])
	tree.advance(step)
	var input := parts[2].split("=")
	var value = str_to_var(input[1])
	inputs.values[input[0]] = value
	# A bool is also the tree's condition of that name, where the machine has one.
	if value is bool and tree.get("parameters/conditions/" + input[0]) != null:
		tree.set("parameters/conditions/" + input[0], value)
	var frames := 0
	while playback.get_current_node() != StringName(parts[1]) and frames < 30:
		tree.advance(step)
		frames += 1
	var out := {"from": parts[0], "input": input[0], "value": value, "current": String(playback.get_current_node()),
		"secs": frames * step}
	tree.queue_free()
	return out
